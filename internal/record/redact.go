package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math/bits"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	sink "github.com/contractcheck/contractcheck/internal/escape" // this file has an escape of its own
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// Redacted is what --redact puts in place of a value.
const Redacted = "[redacted]"

// pointer is one --redact JSON pointer: as given, and its unescaped reference tokens.
type pointer struct {
	text   string
	tokens []string
}

// parsePointer parses an RFC 6901 JSON pointer ("" is the whole document, else "/"-separated
// tokens with ~0 for ~ and ~1 for /).
func parsePointer(s string) (pointer, error) {
	p := pointer{text: s}
	if s == "" {
		return p, nil
	}
	if s[0] != '/' {
		return p, fmt.Errorf("--redact %s: a JSON pointer starts with / (RFC 6901)", strconv.Quote(s))
	}
	for _, t := range strings.Split(s[1:], "/") {
		for i := 0; i < len(t); i++ {
			if t[i] == '~' && (i+1 == len(t) || t[i+1] != '0' && t[i+1] != '1') {
				return p, fmt.Errorf("--redact %s: ~ must be followed by 0 or 1 (RFC 6901)", strconv.Quote(s))
			}
		}
		p.tokens = append(p.tokens, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return p, nil
}

// redact applies the pointers to a tools/call result: the value at each is replaced by the
// string "[redacted]", and the text of every string in the values replaced is then blanked
// ("[redacted]") wherever it occurs in the result (a text block's copy of structuredContent, say)
// and in the provider item, as JSON string content escaped once (or with HTML escapes) or twice
// (JSON inside a JSON string). Numbers, booleans and null replaced by a pointer are not searched
// for elsewhere (their text would blank unrelated text). applied lists the pointers that
// selected a value. Both outputs are checked to still be JSON.
func redact(ps []pointer, src, item []byte) (outSrc, outItem []byte, applied []string, err error) {
	if len(ps) == 0 {
		return src, item, nil, nil
	}
	outSrc, outItem = src, item
	var texts []string
	for _, p := range ps {
		s, e, ok, err := fakeprovider.ValueAt(outSrc, p.tokens)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--redact %s: the result: %v", p.text, err)
		}
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(outSrc[s:e], &v) == nil {
			texts = append(texts, stringsOf(v)...)
		}
		outSrc = slices.Concat(outSrc[:s:s], []byte(`"`+Redacted+`"`), outSrc[e:])
		applied = append(applied, p.text)
	}
	if len(applied) == 0 {
		return src, item, nil, nil
	}
	var forms [][]byte
	for _, t := range texts {
		if t == "" || t == Redacted {
			continue
		}
		once := escape(t, false)
		html := escape(t, true)
		for _, f := range [][]byte{once, html, asciiEscape(once), asciiEscape(html)} {
			forms = append(forms, f, escape(string(f), false))
		}
	}
	// The longest first, so that a shorter form never splits a longer one's occurrence.
	slices.SortFunc(forms, func(a, b []byte) int { return len(b) - len(a) })
	for _, f := range forms {
		outSrc = bytes.ReplaceAll(outSrc, f, []byte(Redacted))
		outItem = bytes.ReplaceAll(outItem, f, []byte(Redacted))
	}
	if !json.Valid(outSrc) || !json.Valid(outItem) {
		return nil, nil, nil, fmt.Errorf("--redact %s: blanking the value's text left the result or the provider item not JSON", strings.Join(applied, ", "))
	}
	return outSrc, outItem, applied, nil
}

// escape is s as the content of a JSON string, with or without HTML escapes.
func escape(s string, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s)
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return out[1 : len(out)-1]
}

// stringsOf lists the strings of a decoded value: itself, or its members' and elements'.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, stringsOf(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsOf(e)...)
		}
		return out
	}
	return nil
}

// asciiEscape writes every non-ASCII character of JSON string content as \uXXXX (lower-case
// hex, surrogate pairs beyond the BMP), as Python's json.dumps does by default.
func asciiEscape(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		if r < 0x80 {
			out.WriteRune(r)
		} else {
			out.WriteString(sink.JSONRune(r))
		}
	}
	return out.Bytes()
}

// credentials are the credential values the agent sent upstream in an authentication position,
// kept as SHA-256 digests (with their lengths and last 8 bytes), never as text: memory grows by
// about a hundred bytes per distinct value, whatever the values' size, and no value is forgotten.
// Nothing of a header or a URL is ever written; find is the second line of defence, refusing a
// pair whose bytes hold one of them anyway (a server that echoes a token, say), in any spelling
// a JSON or URL encoder gives it.
//
// The proxies add values concurrently while the writer searches: an added value goes to pending
// (a short lock that a search never holds), and find moves pending into the index before it
// searches, so every value noted before a pair reached the writer is sought in it.
type credentials struct {
	headers []string // canonical names of the credential headers, built in and --secret-header

	mu      sync.RWMutex                 // the index: find reads it while searching, a merge writes it
	seen    map[[sha256.Size]byte]string // a value's digest → where it was seen (one of sources)
	sources map[string]string            // the names of where values were seen, each kept once
	anchors map[uint64][]int             // a value's last 8 bytes (little-endian) → the lengths of values ending so
	filter  []uint64                     // one bit per filterHash of an anchor: most windows stop here
	shift   uint                         // 64 - log2(bits in filter)
	long    map[polyKey]bool             // the length and rolling hash of each value longer than shortValue
	pows    map[int]uint64               // polyBase to the power of each long value's length

	pendingMu sync.Mutex
	pending   map[[sha256.Size]byte]pendingCredential
}

// pendingCredential is a value added and not yet in the index: its anchor, length and source.
type pendingCredential struct {
	anchor uint64
	n      int
	poly   uint64 // the rolling hash, for a value longer than shortValue
	source string
}

// polyKey is a long value's length and rolling hash.
type polyKey struct {
	n    int
	hash uint64
}

// shortValue is the longest value whose windows scan hashes with SHA-256 at once. A longer
// value's windows are first compared by rolling hash (Rabin–Karp, computed from checkpoints
// every polyStep bytes), so that a window's cost does not grow with the value's length: a text
// whose every window ends like a 100 KiB value would otherwise cost 100 KiB of hashing a byte.
const shortValue = 256

// minCredential is the shortest value sought: a shorter one (a cookie's "dark", a PIN) would
// match ordinary text and blank pairs for nothing. It is also the width of the anchor window.
const minCredential = 8

// maxLayers is how many decodings (JSON string unescaping, percent-decoding) find undoes one
// upon the other: a token in a percent-encoded URL inside JSON text inside a JSON string inside
// a provider item is four.
const maxLayers = 4

// mergeAt is how many pending values an adder moves into the index itself when no search holds
// it (else the next find does).
const mergeAt = 4096

// credentialHeaders are the request headers whose values are credentials.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie", "Anthropic-Api-Key", "Openai-Api-Key", "X-Auth-Token"}

// credentialParams are the query parameters whose values are credentials.
var credentialParams = []string{"key", "api_key", "api-key", "apikey", "access_token", "token", "sig", "signature"}

// newCredentials returns an empty set that also takes the values of the headers named in extra
// (--secret-header; valid header names, any case).
func newCredentials(extra []string) *credentials {
	c := &credentials{headers: slices.Clone(credentialHeaders)}
	for _, h := range extra {
		h = http.CanonicalHeaderKey(h)
		if !slices.Contains(c.headers, h) {
			c.headers = append(c.headers, h)
		}
	}
	return c
}

// noteRequest notes the credentials of a request: its credential headers, its URL's user and
// password, and its credential query parameters.
func (c *credentials) noteRequest(h http.Header, u *url.URL) {
	for _, name := range c.headers {
		for _, v := range h.Values(name) {
			switch name {
			case "Authorization", "Proxy-Authorization":
				c.addAuthorization(name, v)
			case "Cookie":
				for part := range strings.SplitSeq(v, ";") {
					k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
					if !ok {
						val = k // a value without a name
					}
					val = strings.TrimSpace(val)
					if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
						val = val[1 : len(val)-1]
					}
					c.addEncoded(val, "a value of the Cookie header")
				}
			default:
				c.add(v, "the "+name+" header")
			}
		}
	}
	c.noteURL(u)
}

// noteURL notes the credentials a URL holds: its user and password (the Basic pair an HTTP
// client sends for them too) and its credential query parameters, both as the query spells them
// and decoded.
func (c *credentials) noteURL(u *url.URL) {
	if u == nil {
		return
	}
	if u.User != nil {
		if pass, ok := u.User.Password(); ok {
			c.addBasic(u.User.Username()+":"+pass, "the user:password of a URL")
		} else {
			c.add(u.User.Username(), "the user of a URL")
		}
	}
	for part := range strings.SplitSeq(u.RawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		k, err := url.QueryUnescape(k)
		i := slices.Index(credentialParams, strings.ToLower(k))
		if err != nil || i < 0 {
			continue
		}
		source := "the " + credentialParams[i] + " query parameter"
		c.addEncoded(v, source)
		if d, err := url.QueryUnescape(v); err == nil {
			c.add(d, source)
		}
	}
}

// addAuthorization notes an Authorization (or Proxy-Authorization) value: the whole value and
// the token after its scheme; for Basic, the decoded user:password, the user, the password and
// the pair's base64 spellings; for a scheme with auth-params (Digest, AWS4-HMAC-SHA256), each
// parameter's value.
func (c *credentials) addAuthorization(name, v string) {
	source := "the " + name + " header"
	v = strings.TrimSpace(v)
	c.add(v, source)
	scheme, tok, ok := strings.Cut(v, " ")
	if !ok {
		return
	}
	tok = strings.TrimSpace(tok)
	c.add(tok, source)
	if strings.EqualFold(scheme, "Basic") {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if pair, err := enc.DecodeString(tok); err == nil {
				c.addBasic(string(pair), "the Basic user:password of the "+name+" header")
				break
			}
		}
		return
	}
	for param := range strings.SplitSeq(tok, ",") {
		if _, val, ok := strings.Cut(param, "="); ok {
			c.add(strings.Trim(strings.TrimSpace(val), `"`), source)
		}
	}
}

// addBasic notes a Basic-auth pair user:password: the pair, the user, the password and the
// pair's base64 spellings (padded or not, standard or URL alphabet).
func (c *credentials) addBasic(pair, source string) {
	c.add(pair, source)
	user, pass, _ := strings.Cut(pair, ":")
	c.add(user, source)
	c.add(pass, source)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		c.add(enc.EncodeToString([]byte(pair)), source)
	}
}

// addEncoded notes a value as sent and, when it is percent-encoded, decoded (a server that
// echoes what a cookie or a query parameter means rather than how it was spelled).
func (c *credentials) addEncoded(v, source string) {
	c.add(v, source)
	if d, err := url.PathUnescape(v); err == nil && d != v {
		c.add(d, source)
	}
}

// add notes one value (surrounding space trimmed) unless it is shorter than minCredential or
// already known. source names where it was seen (a header, a parameter), never the value.
func (c *credentials) add(v, source string) {
	v = strings.TrimSpace(v)
	if len(v) < minCredential {
		return
	}
	sum := sha256.Sum256([]byte(v))
	c.mu.RLock()
	_, known := c.seen[sum]
	c.mu.RUnlock()
	if known {
		return
	}
	c.pendingMu.Lock()
	if c.pending == nil {
		c.pending = map[[sha256.Size]byte]pendingCredential{}
	}
	pc := pendingCredential{anchor: binary.LittleEndian.Uint64([]byte(v[len(v)-minCredential:])), n: len(v), source: source}
	if pc.n > shortValue {
		pc.poly = polyHash(0, []byte(v))
	}
	c.pending[sum] = pc
	n := len(c.pending)
	c.pendingMu.Unlock()
	if n >= mergeAt && c.mu.TryLock() {
		c.merge()
		c.mu.Unlock()
	}
}

// merge moves the pending values into the index. The caller holds mu for writing.
func (c *credentials) merge() {
	c.pendingMu.Lock()
	p := c.pending
	c.pending = nil
	c.pendingMu.Unlock()
	if len(p) == 0 {
		return
	}
	if c.seen == nil {
		c.seen = map[[sha256.Size]byte]string{}
		c.anchors = map[uint64][]int{}
		c.long = map[polyKey]bool{}
		c.pows = map[int]uint64{}
		c.sources = map[string]string{}
	}
	grown := false
	for sum, pc := range p {
		if _, ok := c.seen[sum]; ok {
			continue
		}
		src, ok := c.sources[pc.source]
		if !ok {
			src = pc.source
			c.sources[src] = src
		}
		c.seen[sum] = src
		if pc.n > shortValue {
			c.long[polyKey{pc.n, pc.poly}] = true
			if _, ok := c.pows[pc.n]; !ok {
				c.pows[pc.n] = polyPow(pc.n)
			}
		}
		lens, ok := c.anchors[pc.anchor]
		if !ok {
			grown = true
		}
		if !slices.Contains(lens, pc.n) {
			c.anchors[pc.anchor] = append(lens, pc.n)
		}
	}
	if !grown {
		return
	}
	// At least 16 bits per anchor, so that a window of ordinary text passes the filter about
	// once in 16 (or far less) and goes to the map.
	bits := uint(1 << 16)
	for bits < uint(16*len(c.anchors)) {
		bits <<= 1
	}
	if len(c.filter)*64 != int(bits) {
		c.filter = make([]uint64, bits/64)
		c.shift = 64 - uint(bitsLen(bits))
		for a := range c.anchors {
			c.setBit(a)
		}
		return
	}
	for a := range p {
		c.setBit(p[a].anchor)
	}
}

// bitsLen is log2 of a power of two.
func bitsLen(n uint) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}

func (c *credentials) setBit(anchor uint64) {
	h := filterHash(anchor) >> c.shift
	c.filter[h>>6] |= 1 << (h & 63)
}

// filterHash spreads an anchor's bits (Fibonacci hashing); the filter takes its top bits.
func filterHash(a uint64) uint64 { return a * 0x9E3779B97F4A7C15 }

// find returns where the first credential any of data holds was seen (a header or parameter
// name, never the value), or "" when none does. Each of data is searched as it is and in every
// form that undoing JSON string escapes (\/, \uXXXX of any character in any case, \" …) and
// percent-encoding (any case), one upon the other up to maxLayers deep, gives it: a value a
// JSON or URL encoder spelled in any of its ways is found as itself.
func (c *credentials) find(data ...[]byte) string {
	c.mu.Lock()
	c.merge()
	c.mu.Unlock()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.seen) == 0 {
		return ""
	}
	seed := maphash.MakeSeed()
	for _, d := range data {
		var done []uint64 // the forms searched already, by hash
		var search func(b []byte, depth int) string
		search = func(b []byte, depth int) string {
			if s := c.scan(b); s != "" {
				return s
			}
			if depth == maxLayers {
				return ""
			}
			for _, decode := range []func([]byte) ([]byte, bool){unescapeJSON, unescapePercent} {
				nb, ok := decode(b)
				if !ok {
					continue
				}
				h := maphash.Bytes(seed, nb)
				if slices.Contains(done, h) {
					continue
				}
				done = append(done, h)
				if s := search(nb, depth+1); s != "" {
					return s
				}
			}
			return ""
		}
		if s := search(d, 0); s != "" {
			return s
		}
	}
	return ""
}

// scan looks for a credential in b as it is: every window of 8 bytes is an anchor candidate
// (the filter rules most out, the map the rest); a window that is a value's last 8 bytes has
// the bytes ending there, of each length a value with that anchor has, looked up: by SHA-256 for
// a short value, by rolling hash and then SHA-256 for a long one. The caller holds mu for
// reading.
func (c *credentials) scan(b []byte) string {
	f, shift := c.filter, c.shift
	var pre *prefixHashes // made at the first window that ends like a long value
	for i := minCredential; i <= len(b); i++ {
		w := binary.LittleEndian.Uint64(b[i-minCredential : i])
		h := filterHash(w) >> shift
		if f[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, n := range c.anchors[w] {
			if n > i {
				continue
			}
			if n > shortValue {
				if pre == nil {
					pre = newPrefixHashes(b)
				}
				hw := (pre.at(i, 0) + polyMod - mulMod(pre.at(i-n, n), c.pows[n])) % polyMod
				if !c.long[polyKey{n, hw}] {
					continue
				}
			}
			if s, ok := c.seen[sha256.Sum256(b[i-n:i])]; ok {
				return s
			}
		}
	}
	return ""
}

// prefixHashes give the rolling hash of b[:i] for the i a scan asks for, in increasing order
// for each cursor (0 for the window's end, a value's length for its start): from the checkpoint
// before i, or on from the cursor's last i when that is nearer, so that a run of windows costs
// one step a byte.
type prefixHashes struct {
	b       []byte
	cp      []uint64 // the hashes of b[:0], b[:polyStep], b[:2·polyStep], …
	cursors map[int]*[2]uint64
}

func newPrefixHashes(b []byte) *prefixHashes {
	p := &prefixHashes{b: b, cp: make([]uint64, 0, len(b)/polyStep+1), cursors: map[int]*[2]uint64{}}
	h := uint64(0)
	for i := 0; ; i += polyStep {
		p.cp = append(p.cp, h)
		if i+polyStep > len(b) {
			return p
		}
		h = polyHash(h, b[i:i+polyStep])
	}
}

// at is the rolling hash of b[:i] through cursor k.
func (p *prefixHashes) at(i, k int) uint64 {
	c, ok := p.cursors[k]
	if !ok {
		c = &[2]uint64{}
		p.cursors[k] = c
	}
	from, h := int(c[0]), c[1]
	if !ok || i < from || i-from > i%polyStep {
		from, h = i/polyStep*polyStep, p.cp[i/polyStep]
	}
	h = polyHash(h, p.b[from:i])
	c[0], c[1] = uint64(i), h
	return h
}

// The rolling hash: a polynomial in polyBase over the bytes (each plus one), modulo the
// Mersenne prime 2^61-1.
const (
	polyMod  = 1<<61 - 1
	polyBase = 0x1b873593a2c4e6f
	polyStep = 64 // bytes between two checkpoints
)

// mulMod is a*b mod polyMod for a, b < polyMod.
func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := (hi<<3 | lo>>61) + lo&polyMod
	if r >= polyMod {
		r -= polyMod
	}
	return r
}

// polyHash extends the rolling hash h by b.
func polyHash(h uint64, b []byte) uint64 {
	for _, x := range b {
		h = mulMod(h, polyBase) + uint64(x) + 1
		if h >= polyMod {
			h -= polyMod
		}
	}
	return h
}

// polyPow is polyBase to the power n.
func polyPow(n int) uint64 {
	r, x := uint64(1), uint64(polyBase)
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r = mulMod(r, x)
		}
		x = mulMod(x, x)
	}
	return r
}

// unescapeJSON undoes JSON string escapes wherever they are in b (a whole document: its
// strings' contents, keys included): \" \\ \/ \b \f \n \r \t and \uXXXX in any case of hex,
// surrogate pairs joined. A backslash that starts no escape stays. ok says something changed.
func unescapeJSON(b []byte) (out []byte, ok bool) {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return b, false
	}
	out = make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		b = b[i:] // b[0] is a backslash
		n := 1
		if len(b) > 1 {
			switch e := b[1]; e {
			case '"', '\\', '/':
				out, n, ok = append(out, e), 2, true
			case 'b', 'f', 'n', 'r', 't':
				out, n, ok = append(out, controlEscapes[e]), 2, true
			case 'u':
				if r, good := hex4(b[2:]); good {
					n, ok = 6, true
					if utf16.IsSurrogate(r) {
						if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
							if r2, good := hex4(b[8:]); good && utf16.DecodeRune(r, r2) != utf8.RuneError {
								r, n = utf16.DecodeRune(r, r2), 12
							}
						}
					}
					out = utf8.AppendRune(out, r)
				}
			}
		}
		if n == 1 {
			out = append(out, '\\')
		}
		b = b[n:]
		i = bytes.IndexByte(b, '\\')
	}
	return append(out, b...), ok
}

// unescapePercent undoes percent-encoding (%XX, any case of hex) wherever it is in b; a % that
// starts no escape stays. '+' stays too: a value sent with a space is also sought by its parts.
func unescapePercent(b []byte) (out []byte, ok bool) {
	i := bytes.IndexByte(b, '%')
	if i < 0 {
		return b, false
	}
	out = make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		b = b[i:] // b[0] is %
		if len(b) >= 3 && isHex(b[1]) && isHex(b[2]) {
			out, ok = append(out, unhex(b[1])<<4|unhex(b[2])), true
			b = b[3:]
		} else {
			out = append(out, '%')
			b = b[1:]
		}
		i = bytes.IndexByte(b, '%')
	}
	return append(out, b...), ok
}

// controlEscapes are the control characters JSON's one-letter escapes stand for.
var controlEscapes = [256]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads four hex digits (any case) at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, x := range b[:4] {
		if !isHex(x) {
			return 0, false
		}
		r = r<<4 | rune(unhex(x))
	}
	return r, true
}

func isHex(x byte) bool {
	return '0' <= x && x <= '9' || 'a' <= x && x <= 'f' || 'A' <= x && x <= 'F'
}

func unhex(x byte) byte {
	switch {
	case x <= '9':
		return x - '0'
	case x >= 'a':
		return x - 'a' + 10
	}
	return x - 'A' + 10
}
