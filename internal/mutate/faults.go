package mutate

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// rich faults target T4 (the complete block atom) and fall back on T1 (kind, primary value,
// count, order) for a fixture evaluated only on T1.
var richTasks = []string{"T4", "T1"}

func faultOperators() []*Operator {
	return []*Operator{
		{Name: "swap-resource-text", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.text"},
			Doc: "Swap the texts of two embedded text resources: every text survives, attached to the wrong URI.", apply: swapResourceText},
		{Name: "rotate-resource-text", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.text"},
			Doc: "Rotate the texts of three embedded text resources (a→b→c→a).", apply: rotateResourceText},
		{Name: "drop-uri", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.uri"},
			Doc: "Remove the URI of one resource or resource link.", apply: dropField("uri")},
		{Name: "alter-mime", Kind: Fault, Tasks: []string{"T4"}, Atoms: []string{"block.mimeType"},
			Doc: "Replace one block's MIME type with another type.", apply: alterMime},
		{Name: "alter-payload-byte", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.payload"},
			Doc: "Flip one bit of one byte of a decoded payload (image, audio or blob), re-encoded in the same spelling.", apply: alterPayloadByte},
		{Name: "drop-block", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.count"},
			Doc: "Remove one content item.", apply: dropBlock},
		{Name: "add-block", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.count"},
			Doc: "Duplicate one content item in place: every value survives, one block too many.", apply: addBlock},
		{Name: "reorder-blocks", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.kind", "block.primary"},
			Doc: "Exchange two content items that differ: the same blocks, in another order.", apply: reorderBlocks},
		{Name: "alter-text", Kind: Fault, Tasks: richTasks, Atoms: []string{"block.text"},
			Doc: "Change one character of a text block or an embedded text resource.", apply: alterText},
		{Name: "drop-annotations", Kind: Fault, Tasks: []string{"T4"}, Atoms: []string{"block.annotations"},
			Doc: "Remove one block's populated annotations.", apply: dropAnnotations},
		{Name: "alter-descriptor", Kind: Fault, Tasks: []string{"T4"}, Atoms: []string{"block.name"},
			Doc: "Change one descriptor of a block (name, title, description, size or icons).", apply: alterDescriptor},
		{Name: "drop-block-meta", Kind: Fault, Tasks: []string{"T4"}, Atoms: []string{"block._meta"},
			Doc: "Remove one block's _meta.", apply: dropField("_meta")},
		{Name: "drop-resource-meta", Kind: Fault, Tasks: []string{"T4"}, Atoms: []string{"block.resourceMeta"},
			Doc: "Remove an embedded resource's own _meta.", apply: dropField("resourceMeta")},
		{Name: "absent-to-null", Kind: Fault, Tasks: []string{"T2"}, Atoms: []string{"structured.state", "structured.value"},
			Doc: "Turn an absent structured field into null: an absent slot becomes structuredContent: null, else a member the object lacks is added as null.", apply: absentToNull},
		{Name: "null-to-absent", Kind: Fault, Tasks: []string{"T2"}, Atoms: []string{"structured.state", "structured.value"},
			Doc: "Turn a null structured field into an absent one: a null slot or a null member is removed.", apply: nullToAbsent},
		{Name: "alter-number", Kind: Fault, Tasks: []string{"T2"}, Atoms: []string{"structured.value"},
			Doc: "Change a number's value in the structured slot (its last digit, exactly, whatever its size).", apply: alterNumber},
		{Name: "string-to-number", Kind: Fault, Tasks: []string{"T2"}, Atoms: []string{"structured.type", "structured.value"},
			Doc: "Replace a string in the structured slot by a number.", apply: stringToNumber},
		{Name: "stringify-structured", Kind: Fault, Tasks: []string{"T2"}, Atoms: []string{"structured.state", "structured.value"},
			Doc: "Move the structured slot into a text item holding its JSON: the value survives only as text.", apply: stringifyStructured},
		{Name: "flip-is-error", Kind: Fault, Tasks: []string{"T3"}, Atoms: []string{"error.decision"},
			Doc: "Flip the explicit error flag (true↔false).", apply: flipIsError},
		{Name: "drop-is-error", Kind: Fault, Tasks: []string{"T3"}, Atoms: []string{"error.decision"},
			Doc: "Remove the explicit error flag.", apply: dropIsError},
		{Name: "drop-result-meta", Kind: Fault, Tasks: []string{"T5"}, Atoms: []string{"result._meta"},
			Doc: "Remove the result-level _meta.", apply: dropResultMeta},
	}
}

func (m *M) compartment() contract.Compartment {
	c, _ := m.Env.compartment(m.Compartment)
	return c
}

func (m *M) blocks() []block { return blocks(m.Carrier, m.compartment()) }

// fieldRef is one bound atom of one block.
type fieldRef struct {
	block
	atom  string
	field contract.Field
	value *Node
}

func (m *M) fields(atom string, ok func(contract.Field, *Node) bool) []fieldRef {
	var out []fieldRef
	for _, b := range m.blocks() {
		if f, v, found := b.field(atom); found && (ok == nil || ok(f, v)) {
			out = append(out, fieldRef{block: b, atom: atom, field: f, value: v})
		}
	}
	return out
}

func plainString(f contract.Field, v *Node) bool {
	return v.Kind == String && (f.Decode == "" || f.Decode == "none")
}

func (m *M) resourceTexts() []fieldRef {
	var out []fieldRef
	for _, r := range m.fields("text", plainString) {
		if r.mapping.Kind == "resource" {
			out = append(out, r)
		}
	}
	return out
}

// distinctTexts keeps the first of each text.
func distinctTexts(refs []fieldRef) []fieldRef {
	var out []fieldRef
	seen := map[string]bool{}
	for _, r := range refs {
		if !seen[r.value.Text] {
			seen[r.value.Text] = true
			out = append(out, r)
		}
	}
	return out
}

func swapResourceText(m *M) error {
	c := distinctTexts(m.resourceTexts())
	if len(c) < 2 {
		return na("fewer than two embedded text resources with different texts")
	}
	p := m.pick(len(c), 2)
	a, b := c[p[0]], c[p[1]]
	a.value.Text, b.value.Text = b.value.Text, a.value.Text
	m.Blocks = []int{a.index, b.index}
	m.Params["blocks"] = m.Blocks
	m.What = fmt.Sprintf("swapped the texts of the embedded resources at content items %d and %d", a.index, b.index)
	return nil
}

func rotateResourceText(m *M) error {
	c := distinctTexts(m.resourceTexts())
	if len(c) < 3 {
		return na("fewer than three embedded text resources with different texts")
	}
	p := m.pick(len(c), 3)
	a, b, d := c[p[0]], c[p[1]], c[p[2]]
	a.value.Text, b.value.Text, d.value.Text = d.value.Text, a.value.Text, b.value.Text
	m.Blocks = []int{a.index, b.index, d.index}
	m.Params["blocks"] = m.Blocks
	m.What = fmt.Sprintf("rotated the texts of the embedded resources at content items %d → %d → %d → %d", a.index, b.index, d.index, a.index)
	return nil
}

// dropField removes one block's bound atom.
func dropField(atom string) func(m *M) error {
	return func(m *M) error {
		c := m.fields(atom, func(f contract.Field, v *Node) bool {
			return f.Path != "" && !(atom != "uri" && v.Kind == Null)
		})
		if len(c) == 0 {
			return na("no content item carries %s", atom)
		}
		r := c[m.Rand.IntN(len(c))]
		if !remove(r.item, r.field.Path) {
			return na("cannot remove %s at %s", atom, r.field.Path)
		}
		m.Blocks = []int{r.index}
		m.Params["block"] = r.index
		m.Params["field"] = r.field.Path
		m.What = fmt.Sprintf("removed %s (%s) of content item %d", atom, r.field.Path, r.index)
		return nil
	}
}

var otherMime = map[string]string{
	"image/png": "image/jpeg", "image/jpeg": "image/png", "audio/wav": "audio/mpeg", "audio/mpeg": "audio/wav",
	"text/markdown": "text/plain", "text/csv": "text/tab-separated-values", "text/plain": "text/markdown",
	"application/pdf": "application/octet-stream", "application/gzip": "application/x-tar",
	"application/zip": "application/x-7z-compressed", "application/json": "text/plain",
}

func alterMime(m *M) error {
	c := m.fields("mimeType", func(f contract.Field, v *Node) bool {
		return v.Kind == String && (f.Decode == "" || f.Decode == "none" || f.Decode == "dataurl-mime")
	})
	if len(c) == 0 {
		return na("no content item carries a MIME type")
	}
	r := c[m.Rand.IntN(len(c))]
	old := r.value.Text
	if r.field.Decode == "dataurl-mime" {
		mime, rest, ok := strings.Cut(strings.TrimPrefix(old, "data:"), ";")
		if !strings.HasPrefix(old, "data:") || !ok {
			return na("content item %d's data URL has no MIME type", r.index)
		}
		r.value.Text = "data:" + swapMime(mime) + ";" + rest
	} else {
		r.value.Text = swapMime(old)
	}
	m.Blocks = []int{r.index}
	m.Params["block"] = r.index
	m.What = fmt.Sprintf("changed the MIME type of content item %d (%s)", r.index, r.field.Path)
	return nil
}

func swapMime(s string) string {
	if o, ok := otherMime[s]; ok {
		return o
	}
	if s == "application/octet-stream" {
		return "text/plain"
	}
	return "application/octet-stream"
}

// decodePayload decodes a base64 or data URL payload and returns a function that spells new
// bytes the same way.
func decodePayload(f contract.Field, s string) ([]byte, func([]byte) string, bool) {
	prefix, body := "", s
	if f.Decode == "dataurl-payload" {
		h, d, ok := strings.Cut(s, ",")
		if !strings.HasPrefix(s, "data:") || !ok || !strings.HasSuffix(h, ";base64") {
			return nil, nil, false
		}
		prefix, body = h+",", d
	} else if f.Decode != "base64" {
		return nil, nil, false
	}
	enc := base64.StdEncoding
	if len(body)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.Strict().DecodeString(body)
	if err != nil {
		return nil, nil, false
	}
	return b, func(nb []byte) string { return prefix + enc.EncodeToString(nb) }, true
}

func payloads(m *M) []fieldRef {
	return m.fields("payload", func(f contract.Field, v *Node) bool {
		if v.Kind != String {
			return false
		}
		b, _, ok := decodePayload(f, v.Text)
		return ok && len(b) > 0
	})
}

func alterPayloadByte(m *M) error {
	c := payloads(m)
	if len(c) == 0 {
		return na("no content item carries a decodable payload")
	}
	r := c[m.Rand.IntN(len(c))]
	b, spell, _ := decodePayload(r.field, r.value.Text)
	off := m.Rand.IntN(len(b))
	bit := m.Rand.IntN(8)
	b[off] ^= 1 << bit
	r.value.Text = spell(b)
	m.Blocks = []int{r.index}
	m.Params["block"] = r.index
	m.Params["offset"] = off
	m.Params["bit"] = bit
	m.What = fmt.Sprintf("flipped bit %d of byte %d of content item %d's payload", bit, off, r.index)
	return nil
}

func (m *M) list() (*Node, error) {
	l, ok := contentList(m.Carrier, m.compartment())
	if !ok {
		return nil, na("the carrier holds no content list the binding reads in place")
	}
	return l, nil
}

// pickBlock picks one item of the content list at random, the block the mutation is about; an
// empty list is not applicable (empty says why).
func (m *M) pickBlock(empty string) (*Node, int, error) {
	l, err := m.list()
	if err != nil {
		return nil, 0, err
	}
	if len(l.Items) == 0 {
		return nil, 0, na("%s", empty)
	}
	i := m.Rand.IntN(len(l.Items))
	m.Blocks = []int{i}
	m.Params["block"] = i
	return l, i, nil
}

func dropBlock(m *M) error {
	l, i, err := m.pickBlock("the content list is empty")
	if err != nil {
		return err
	}
	l.Items = slices.Delete(l.Items, i, i+1)
	m.What = fmt.Sprintf("removed content item %d", i)
	return nil
}

func addBlock(m *M) error {
	l, i, err := m.pickBlock("the content list is empty: nothing to duplicate")
	if err != nil {
		return err
	}
	l.Items = slices.Insert(l.Items, i+1, l.Items[i].Clone())
	m.What = fmt.Sprintf("duplicated content item %d in place", i)
	return nil
}

func reorderBlocks(m *M) error {
	l, err := m.list()
	if err != nil {
		return err
	}
	var pairs [][2]int
	for i := range l.Items {
		for j := i + 1; j < len(l.Items); j++ {
			if string(l.Items[i].Bytes(Style{})) != string(l.Items[j].Bytes(Style{})) {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	if len(pairs) == 0 {
		return na("fewer than two different content items")
	}
	p := pairs[m.Rand.IntN(len(pairs))]
	l.Items[p[0]], l.Items[p[1]] = l.Items[p[1]], l.Items[p[0]]
	m.Blocks = []int{p[0], p[1]}
	m.Params["blocks"] = m.Blocks
	m.What = fmt.Sprintf("exchanged content items %d and %d", p[0], p[1])
	return nil
}

func alterText(m *M) error {
	c := m.fields("text", func(f contract.Field, v *Node) bool { return plainString(f, v) && v.Text != "" })
	if len(c) == 0 {
		return na("no content item carries a non-empty text")
	}
	r := c[m.Rand.IntN(len(c))]
	runes := []rune(r.value.Text)
	off := m.Rand.IntN(len(runes))
	old := runes[off]
	runes[off] = 'x'
	if old == 'x' {
		runes[off] = 'y'
	}
	r.value.Text = string(runes)
	m.Blocks = []int{r.index}
	m.Params["block"] = r.index
	m.Params["offset"] = off
	m.What = fmt.Sprintf("changed character %d (%q → %q) of content item %d's text", off, old, runes[off], r.index)
	return nil
}

func dropAnnotations(m *M) error {
	c := m.fields("annotations", func(f contract.Field, v *Node) bool {
		return f.Path != "" && v.Kind == Object && len(v.Keys) > 0
	})
	if len(c) == 0 {
		return na("no content item carries populated annotations")
	}
	r := c[m.Rand.IntN(len(c))]
	remove(r.item, r.field.Path)
	m.Blocks = []int{r.index}
	m.Params["block"] = r.index
	m.What = fmt.Sprintf("removed the annotations of content item %d", r.index)
	return nil
}

var descriptors = []string{"name", "title", "description", "size", "icons"}

func alterDescriptor(m *M) error {
	var c []fieldRef
	for _, d := range descriptors {
		c = append(c, m.fields(d, func(_ contract.Field, v *Node) bool {
			return v.Kind == String || v.Kind == Number || v.Kind == Array && len(v.Items) > 0
		})...)
	}
	if len(c) == 0 {
		return na("no content item carries a descriptor")
	}
	r := c[m.Rand.IntN(len(c))]
	switch r.value.Kind {
	case String:
		r.value.Text += " (rev. 2)"
	case Number:
		r.value.Text = incNumber(r.value.Text)
	case Array:
		r.value.Items = r.value.Items[:len(r.value.Items)-1]
	}
	m.Atoms = []string{"block." + r.atom}
	m.Blocks = []int{r.index}
	m.Params["block"] = r.index
	m.Params["descriptor"] = r.atom
	m.What = fmt.Sprintf("changed the %s of content item %d", r.atom, r.index)
	return nil
}

// structured returns the structured slot's binding, its root and value.
func (m *M) structured() (contract.Field, *Node, *Node, bool, error) {
	c := m.compartment()
	if c.Structured == nil {
		return contract.Field{}, nil, nil, false, na("the binding has no structured slot")
	}
	root, v, ok := slot(m.Carrier, c, c.Structured)
	if root == nil || c.Structured.Path == "" {
		return contract.Field{}, nil, nil, false, na("the carrier has no place for a structured slot")
	}
	return *c.Structured, root, v, ok, nil
}

// presentStructured is structured for an operator that changes the slot's value: an absent slot
// makes it not applicable.
func (m *M) presentStructured() (contract.Field, *Node, *Node, error) {
	f, root, v, present, err := m.structured()
	if err == nil && !present {
		err = na("the structured slot is absent")
	}
	return f, root, v, err
}

var newKeys = []string{"remarks", "supersededBy", "auditNote", "lastCheckedBy"}

func absentToNull(m *M) error {
	f, root, v, present, err := m.structured()
	if err != nil {
		return err
	}
	switch {
	case !present:
		put(root, f.Path, &Node{Kind: Null})
		m.What = "added the absent structured slot as null"
	case v.Kind == Object:
		var free []string
		for _, k := range newKeys {
			if _, taken := v.Get(k); !taken {
				free = append(free, k)
			}
		}
		k := free[m.Rand.IntN(len(free))]
		v.Set(k, &Node{Kind: Null})
		m.Path = "/" + strictjson.EscapeToken(k)
		m.What = fmt.Sprintf("added the absent member %s to the structured object as null", m.Path)
	default:
		return na("the structured slot is neither absent nor an object")
	}
	m.Params["path"] = m.Path
	return nil
}

// members lists the object members and array items below v that satisfy ok, with their pointers.
type member struct {
	ptr    string
	parent *Node
	key    string // object member key; "" for an array item
	index  int
	value  *Node
}

func members(v *Node, ok func(*Node) bool) []member {
	var out []member
	var walk func(ptr string, n *Node)
	walk = func(ptr string, n *Node) {
		switch n.Kind {
		case Object:
			for i, k := range n.Keys {
				p := ptr + "/" + strictjson.EscapeToken(k)
				if ok(n.Vals[i]) {
					out = append(out, member{ptr: p, parent: n, key: k, value: n.Vals[i]})
				}
				walk(p, n.Vals[i])
			}
		case Array:
			for i, it := range n.Items {
				p := ptr + "/" + strconv.Itoa(i)
				if ok(it) {
					out = append(out, member{ptr: p, parent: n, index: i, value: it})
				}
				walk(p, it)
			}
		}
	}
	walk("", v)
	return out
}

func nullToAbsent(m *M) error {
	f, root, v, err := m.presentStructured()
	if err != nil {
		return err
	}
	if v.Kind == Null {
		remove(root, f.Path)
		m.What = "removed the null structured slot"
	} else {
		c := members(v, func(n *Node) bool { return n.Kind == Null })
		var objs []member
		for _, x := range c {
			if x.parent.Kind == Object {
				objs = append(objs, x)
			}
		}
		if len(objs) == 0 {
			return na("the structured slot holds no null member")
		}
		x := objs[m.Rand.IntN(len(objs))]
		x.parent.Delete(x.key)
		m.Path = x.ptr
		m.What = fmt.Sprintf("removed the null member %s of the structured slot", x.ptr)
	}
	m.Params["path"] = m.Path
	return nil
}

func structuredMembers(m *M, kind Kind) ([]member, error) {
	_, _, v, err := m.presentStructured()
	if err != nil {
		return nil, err
	}
	c := members(v, func(n *Node) bool { return n.Kind == kind })
	if len(c) == 0 {
		return nil, na("the structured slot holds no %s", [...]string{"null", "boolean", "number", "string"}[kind])
	}
	return c, nil
}

func alterNumber(m *M) error {
	c, err := structuredMembers(m, Number)
	if err != nil {
		return err
	}
	x := c[m.Rand.IntN(len(c))]
	old := x.value.Text
	x.value.Text = incNumber(old)
	m.Path = x.ptr
	m.Params["path"] = m.Path
	m.What = fmt.Sprintf("changed the number at %s from %s to %s", x.ptr, old, x.value.Text)
	return nil
}

func stringToNumber(m *M) error {
	c, err := structuredMembers(m, String)
	if err != nil {
		return err
	}
	x := c[m.Rand.IntN(len(c))]
	n := strconv.Itoa(len([]rune(x.value.Text)))
	m.What = fmt.Sprintf("replaced the string %q at %s by the number %s", x.value.Text, x.ptr, n)
	*x.value = Node{Kind: Number, Text: n}
	m.Path = x.ptr
	m.Params["path"] = m.Path
	return nil
}

func stringifyStructured(m *M) error {
	f, root, v, err := m.presentStructured()
	if err != nil {
		return err
	}
	c := m.compartment()
	l, ok := contentList(m.Carrier, c)
	if !ok {
		return na("the carrier has no content list to hold the text")
	}
	typ, textPath := "", ""
	for _, t := range contract.SortedKeys(c.Content.Kinds) {
		mp := c.Content.Kinds[t]
		if tf, has := mp.Fields["text"]; has && mp.Kind == "text" && (tf.Decode == "" || tf.Decode == "none") {
			typ, textPath = t, tf.Path
			break
		}
	}
	if typ == "" || c.Content.Discriminator == "" || textPath == "" {
		return na("the binding maps no text item")
	}
	item := &Node{Kind: Object, Keys: []string{}, Vals: []*Node{}}
	put(item, c.Content.Discriminator, Str(typ))
	put(item, textPath, Str(string(v.Bytes(Style{}))))
	l.Items = append(l.Items, item)
	remove(root, f.Path)
	m.Blocks = []int{len(l.Items) - 1}
	m.What = fmt.Sprintf("removed the structured slot and appended its JSON as text item %d", len(l.Items)-1)
	return nil
}

func (m *M) errorFlag() (*contract.ErrorField, *Node, *Node, error) {
	c := m.compartment()
	if c.IsError == nil || c.IsError.Path == "" {
		return nil, nil, nil, na("the binding has no error flag")
	}
	root := compartmentRoot(m.Carrier, c)
	if root == nil {
		return nil, nil, nil, na("the carrier has no result to hold an error flag")
	}
	v, ok := lookup(root, c.IsError.Path)
	if !ok {
		return nil, nil, nil, na("the carrier holds no error flag")
	}
	return c.IsError, root, v, nil
}

func flipIsError(m *M) error {
	ef, _, v, err := m.errorFlag()
	if err != nil {
		return err
	}
	switch {
	case v.Kind == Bool:
		v.Bool = !v.Bool
	case v.Kind == String && slices.Contains(ef.Abort, v.Text) && len(ef.Continue) > 0:
		v.Text = ef.Continue[0]
	case v.Kind == String && slices.Contains(ef.Continue, v.Text) && len(ef.Abort) > 0:
		v.Text = ef.Abort[0]
	default:
		return na("the error flag is neither a boolean nor a declared abort or continue value")
	}
	m.What = "flipped the error flag " + ef.Path
	return nil
}

func dropIsError(m *M) error {
	ef, root, v, err := m.errorFlag()
	if err != nil {
		return err
	}
	if v.Kind == Null {
		return na("the error flag is null: removing it leaves the decision unknown")
	}
	remove(root, ef.Path)
	m.What = "removed the error flag " + ef.Path
	return nil
}

func dropResultMeta(m *M) error {
	c := m.compartment()
	root, v, ok := slot(m.Carrier, c, c.Meta)
	if !ok || c.Meta.Path == "" || v.Kind == Null {
		return na("the carrier holds no result _meta")
	}
	if !remove(root, c.Meta.Path) {
		return na("cannot remove the result _meta at %s", c.Meta.Path)
	}
	m.What = "removed the result _meta " + c.Meta.Path
	return nil
}

// incNumber adds one to the last digit of a JSON number's mantissa, carrying: a different value
// spelled exactly, whatever its size ("9" → "10", "2.5E-7" → "2.6E-7", "-0.19" → "-0.20").
func incNumber(s string) string {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	b := []byte(mant)
	for i := len(b) - 1; i >= 0; i-- {
		switch {
		case b[i] == '.':
			continue
		case b[i] == '9':
			b[i] = '0'
			continue
		case b[i] >= '0' && b[i] <= '8':
			b[i]++
			return string(b) + exp
		}
		// reached the sign: carry into a new leading digit
		return string(b[:i+1]) + "1" + string(b[i+1:]) + exp
	}
	return "1" + string(b) + exp
}
