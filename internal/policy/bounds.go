package policy

import (
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// Bounded builtins.
//
// OPA checks for cancellation between expressions, and inside numbers.range and the builtins
// that write through its cancellable sink, but a builtin call is otherwise one uninterruptible Go
// call, and some builtins allocate or compute in proportion to the *value* of an argument, not
// to the size of their inputs: bits.lsh(1, 1e12) asks for a 125 GB number (a fatal out-of-memory
// error no watchdog can catch), bits.lsh(1, 1e8) for a 30-million-digit one whose decimal
// conversion runs for a minute past the time limit, sprintf("%9999999d…") for 10 MB per verb,
// concat(sep, xs) for len(sep)·count(xs) bytes, and a few lines of Rego that nest an array in
// itself ([x, x], thirty times) build a value of 2^30 leaves in 30 allocations, which
// json.marshal or array.flatten then expand in one call.
//
// The sandbox therefore checks, before OPA's own implementation runs, what such a call would
// make, and refuses the call when it would pass a limit: the evaluation halts with a
// *BuiltinLimitError naming the builtin, the limit and the call's position, which the command
// line reports, like the time limit and the memory budget, as the instrument failing (exit 3).
// The checks read the operands only (their spellings and sizes; replace, regex.replace,
// strings.replace_n and indexof_n count matches when the operands are large enough to matter),
// so they cost no more than the call itself, and are deterministic: the same policy on the same
// input is refused on every machine, whatever its memory. The limits are far above anything the built-in policies make (their
// check report is the same with and without them) and above anything a policy can read from
// an input (16 MiB a file, numbers of 4300 digits and exponents within ±10000):
//
//   - numbers: at most MaxNumberBits (100000) bits, the bound OPA's own parser puts on a number
//     literal ("number too big"): bits.lsh, mul, div, product, units.parse and
//     units.parse_bytes refuse a result past it, to_number and the units parsers a spelling of
//     more than MaxNumberDigits digits; sum, product, max, min and sort refuse to convert more
//     than MaxDigitWork digit² of long numbers (decimal-to-binary conversion is quadratic in
//     the digits: 100000 references to one 30000-digit number made sum run 19 s);
//   - strings: at most MaxStringBytes (16 MiB, the largest input file): sprintf (width,
//     precision and arguments), concat, replace, strings.replace_n, regex.replace, json.marshal,
//     json.marshal_with_options (indentation times depth) and yaml.marshal;
//   - arrays: at most MaxArrayElements elements, and at most MaxHashBytes of strings and
//     numbers hashed into one array (OPA hashes every element of a new array, and a string's
//     hash is not cached): array.concat, array.flatten, array.reverse, split, strings.split_n
//     and indexof_n;
//   - graph.reachable_paths, whose result can be exponential in the graph's size, is
//     reimplemented (same results) with a cancellation check and a bound of MaxArrayElements
//     path elements in all.
//
// strings.render_template is left out of the sandbox instead (denied): a Go template's
// {{range 1000000000000}} loops inside the call without writing anything, so neither a size
// check nor a cancellable writer can bound it.
//
// numbers.range and numbers.range_step are not bounded here: OPA checks for cancellation at
// every element they make (an ordinary range has its ends among OPA's interned integers and
// makes at most a few hundred), so the time limit stops a huge range, and the memory watchdog
// sees it grow: numbers.range(1, 1e12) stops at the 5 s limit at 0.7 GB, or at a budget of
// 256 MiB at 260 MB. array.slice, substring, strings.reverse, format_int, abs, round and the
// bits operations other than bits.lsh make nothing larger than their operands (whose numbers
// are bounded as above), plus and minus a bit more. Builtins whose work is proportional to the
// size of their operands (base64, hex, upper, regex matching) are bounded by the limits on what
// builds those operands.
//
// OPA calls the implementation it registered for a builtin's name before any rego.Function of
// the same name, so the bounded implementations replace OPA's in its registry
// (topdown.RegisterBuiltinFunc) when this package is initialised: they apply to every Rego
// evaluation of the process, prepared queries and the test runner alike. contractcheck evaluates
// Rego nowhere else.

// The sandbox's limits on what one builtin call may make.
const (
	// MaxNumberBits bounds a number a builtin makes: |x| < 2^MaxNumberBits, and |x| ≥
	// 2^-MaxNumberBits unless x is 0. It is OPA's own bound on a number literal.
	MaxNumberBits = 100000
	// MaxNumberDigits bounds the digits of a number a builtin reads from a string (to_number,
	// units.parse): the digits of 2^MaxNumberBits.
	MaxNumberDigits = 30103
	// MaxDigitWork bounds the decimal-to-binary conversion one call may do, as the sum of the
	// squared digit counts of the long numbers (more than 15 digits) it converts: about 0.2 s.
	MaxDigitWork = 1 << 37
	// MaxStringBytes bounds a string a builtin makes: the largest input file (safeio).
	MaxStringBytes = safeio.MaxFileBytes
	// MaxArrayElements bounds the elements of an array a builtin makes.
	MaxArrayElements = 1 << 22
	// MaxHashBytes bounds the bytes of strings and numbers one new array hashes.
	MaxHashBytes = 1 << 28
)

// BuiltinLimitError is a builtin call the sandbox refused because what it would make passes
// one of the sandbox's limits (see MaxNumberBits and the others).
type BuiltinLimitError struct {
	// Builtin is the builtin's name, e.g. "bits.lsh".
	Builtin string
	// Location is where the policy calls it.
	Location *ast.Location
	// Would is what the call would make, e.g. "a number of 1000000000001 bits".
	Would string
	// Limit is the limit it passes, e.g. "100000 bits per number".
	Limit string
}

// Error returns the message: "p.rego:6:7: bits.lsh would make a number of 1000000000001 bits,
// past the sandbox's limit of 100000 bits per number".
func (e *BuiltinLimitError) Error() string {
	return fmt.Sprintf("%s%s would make %s, past the sandbox's limit of %s", locationPrefix(e.Location), e.Builtin, e.Would, e.Limit)
}

// LimitError is the refusal as the guard's limit error for what (a policy or a Rego test): the
// command line reports it as the instrument failing (exit 3), as it reports the time limit.
func (e *BuiltinLimitError) LimitError(what string) *guard.LimitError {
	at := ""
	if e.Location != nil {
		at = " at " + where(e.Location)
	}
	return &guard.LimitError{What: what, Limit: fmt.Sprintf("the sandbox's limit of %s: %s%s would make %s", e.Limit, e.Builtin, at, e.Would)}
}

func locationPrefix(loc *ast.Location) string {
	if loc == nil {
		return ""
	}
	return where(loc) + ": "
}

// refusal is what a bound says of a call: nil when the call is within the limits.
type refusal struct {
	would, limit string
}

// bound checks a call's operands (the inputs; any output operand comes after them).
type bound func(operands []*ast.Term) *refusal

// bounds are the bounded builtins' checks.
var bounds = map[string]bound{
	ast.BitsShiftLeft.Name:          boundShiftLeft,
	ast.Multiply.Name:               boundMultiply,
	ast.Divide.Name:                 boundDivide,
	ast.Product.Name:                boundProduct,
	ast.Sum.Name:                    boundConversions(1),
	ast.Max.Name:                    boundConversions(1),
	ast.Min.Name:                    boundConversions(1),
	ast.Sort.Name:                   boundConversions(0),
	ast.ToNumber.Name:               boundToNumber,
	ast.UnitsParse.Name:             boundUnits,
	ast.UnitsParseBytes.Name:        boundUnits,
	ast.Sprintf.Name:                boundSprintf,
	ast.Concat.Name:                 boundConcat,
	ast.Replace.Name:                boundReplace,
	ast.ReplaceN.Name:               boundReplaceN,
	ast.RegexReplace.Name:           boundRegexReplace,
	ast.JSONMarshal.Name:            boundMarshal(false),
	ast.JSONMarshalWithOptions.Name: boundMarshalWithOptions,
	ast.YAMLMarshal.Name:            boundMarshal(true),
	ast.ArrayConcat.Name:            boundArrayConcat,
	ast.ArrayFlatten.Name:           boundArrayFlatten,
	ast.ArrayReverse.Name:           boundArrayReverse,
	ast.Split.Name:                  boundSplit,
	ast.SplitN.Name:                 boundSplit,
	ast.IndexOfN.Name:               boundIndexOfN,
}

// BoundedBuiltins lists the builtins whose calls the sandbox bounds, sorted.
func BoundedBuiltins() []string {
	names := []string{ast.ReachablePathsBuiltin.Name}
	for name := range bounds {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// opaBuiltins are OPA's implementations of the bounded builtins, which the bounded ones call
// (graph.reachable_paths's, which it replaces, for the tests).
var opaBuiltins = map[string]topdown.BuiltinFunc{}

func init() {
	for _, name := range BoundedBuiltins() {
		orig := topdown.GetBuiltin(name)
		if orig == nil {
			panic("policy: OPA has no builtin " + name + " to bound")
		}
		opaBuiltins[name] = orig
		if name == ast.ReachablePathsBuiltin.Name {
			topdown.RegisterBuiltinFunc(name, reachablePaths)
			continue
		}
		check := bounds[name]
		topdown.RegisterBuiltinFunc(name, func(bctx topdown.BuiltinContext, operands []*ast.Term, iter func(*ast.Term) error) error {
			if r := check(operands); r != nil {
				return refuse(name, bctx.Location, r)
			}
			return orig(bctx, operands, iter)
		})
	}
}

// refuse halts the evaluation with the refusal: a Halt, so that a refused call never reads as
// an undefined expression, whatever the evaluation does with builtin errors.
func refuse(name string, loc *ast.Location, r *refusal) error {
	le := &BuiltinLimitError{Builtin: name, Location: loc, Would: r.would, Limit: r.limit}
	msg := fmt.Sprintf("%s would make %s, past the sandbox's limit of %s", name, r.would, r.limit)
	return topdown.Halt{Err: (&topdown.Error{Code: topdown.BuiltinErr, Message: msg, Location: loc}).Wrap(le)}
}

// operand returns the i-th operand's value, or nil when the call has fewer.
func operand(operands []*ast.Term, i int) ast.Value {
	if i < len(operands) && operands[i] != nil {
		return operands[i].Value
	}
	return nil
}

// Numbers.

var (
	log2of10   = math.Log2(10)
	numberTxt  = fmt.Sprintf("%d bits per number (OPA's own bound on a number literal)", MaxNumberBits)
	digitsTxt  = fmt.Sprintf("%d digits per number (the digits of a %d-bit number)", MaxNumberDigits, MaxNumberBits)
	workTxt    = fmt.Sprintf("%d digit² of decimal conversion per call (it is quadratic in the digits)", int64(MaxDigitWork))
	stringTxt  = fmt.Sprintf("%d bytes (%s) per string, the largest input file", MaxStringBytes, guard.Size(MaxStringBytes))
	elementTxt = fmt.Sprintf("%d elements per array", MaxArrayElements)
	hashTxt    = fmt.Sprintf("%d bytes (%s) of strings and numbers hashed into one array", MaxHashBytes, guard.Size(MaxHashBytes))
)

// log10Abs returns log10|x| for the number spelled s, from its spelling alone (no conversion of
// its digits), and false for zero or a spelling that is not a number's. An exponent too large
// for an int64 counts as ±1e18.
func log10Abs(s string) (float64, bool) {
	s = strings.TrimLeft(s, "+-")
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		es := s[i+1:]
		neg := strings.HasPrefix(es, "-")
		if neg || strings.HasPrefix(es, "+") {
			es = es[1:]
		}
		if es == "" || !allDigits(es) {
			return 0, false
		}
		exp = 1e18
		if len(es) <= 18 {
			exp, _ = strconv.ParseInt(es, 10, 64)
		}
		if neg {
			exp = -exp
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if !allDigits(ip) || !allDigits(fp) || ip+fp == "" {
		return 0, false
	}
	digits := ip + fp
	first := strings.IndexFunc(digits, func(r rune) bool { return r != '0' })
	if first < 0 {
		return 0, false
	}
	sig := digits[first:min(first+17, len(digits))]
	f, err := strconv.ParseFloat("0."+sig, 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	return math.Log10(f) + float64(int64(len(ip)-first)+exp), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// numberLog10 is log10Abs of a number operand; ok is false when v is not a non-zero number.
func numberLog10(v ast.Value) (float64, bool) {
	n, ok := v.(ast.Number)
	if !ok {
		return 0, false
	}
	return log10Abs(string(n))
}

// checkMagnitude refuses a result of magnitude 10^l (l = log10|x|) past MaxNumberBits either way.
func checkMagnitude(l float64) *refusal {
	bits := l * log2of10
	if bits < MaxNumberBits && bits > -MaxNumberBits {
		return nil
	}
	if bits > 0 {
		return &refusal{would: fmt.Sprintf("a number of about %.0f bits (%.0f digits)", math.Ceil(bits), math.Ceil(l)), limit: numberTxt}
	}
	return &refusal{would: fmt.Sprintf("a number of about 2^-%.0f (%.0f zeros after the point)", math.Ceil(-bits), math.Floor(-l)), limit: numberTxt}
}

// boundShiftLeft: bits.lsh(x, s) is a number of bitlen(x)+s bits.
func boundShiftLeft(operands []*ast.Term) *refusal {
	x, ok := operand(operands, 0).(ast.Number)
	if !ok {
		return nil
	}
	s, ok := operand(operands, 1).(ast.Number)
	if !ok || strings.HasPrefix(string(s), "-") {
		return nil // OPA refuses a negative shift
	}
	var xbits float64
	if i, ok := x.Int64(); ok {
		xbits = float64(bits.Len64(uint64(max(i, -i))))
	} else if l, ok := log10Abs(string(x)); ok {
		xbits = math.Floor(l*log2of10) + 1
	}
	if xbits == 0 {
		return nil // 0 shifted is 0; OPA reports an operand that is not an integer
	}
	shift := 0.0
	if i, ok := s.Int64(); ok {
		shift = float64(i)
	} else if l, ok := log10Abs(string(s)); ok {
		shift = math.Pow(10, min(l, 300))
	}
	if xbits+shift <= MaxNumberBits {
		return nil
	}
	return &refusal{would: fmt.Sprintf("a number of %.0f bits", xbits+shift), limit: numberTxt}
}

// boundMultiply: |x·y| = 10^(log|x| + log|y|).
func boundMultiply(operands []*ast.Term) *refusal {
	lx, ok1 := numberLog10(operand(operands, 0))
	ly, ok2 := numberLog10(operand(operands, 1))
	if !ok1 || !ok2 {
		return nil
	}
	return checkMagnitude(lx + ly)
}

// boundDivide: |x/y| = 10^(log|x| - log|y|).
func boundDivide(operands []*ast.Term) *refusal {
	lx, ok1 := numberLog10(operand(operands, 0))
	ly, ok2 := numberLog10(operand(operands, 1))
	if !ok1 || !ok2 {
		return nil
	}
	return checkMagnitude(lx - ly)
}

// elements calls f on each element of an array or set, until it returns true.
func elements(v ast.Value, f func(*ast.Term) bool) {
	switch x := v.(type) {
	case *ast.Array:
		x.Until(f)
	case ast.Set:
		x.Until(f)
	}
}

// boundProduct: the product's magnitude, and any partial product's, is at most the sum of the
// factors' magnitudes of at least 1; the conversion work is bounded as for sum.
func boundProduct(operands []*ast.Term) *refusal {
	if r := boundConversions(1)(operands); r != nil {
		return r
	}
	up, down := 0.0, 0.0
	elements(operand(operands, 0), func(t *ast.Term) bool {
		if l, ok := numberLog10(t.Value); ok {
			if l > 0 {
				up += l
			} else {
				down += l
			}
		}
		return false
	})
	if r := checkMagnitude(up); r != nil {
		return r
	}
	return checkMagnitude(down)
}

// boundConversions bounds the decimal conversion of the long numbers of a collection, each
// converted once (sum, product) or about log2(n) times (sort: factor 0).
func boundConversions(factor int64) bound {
	return func(operands []*ast.Term) *refusal {
		v := operand(operands, 0)
		n := int64(0)
		var work, longest int64
		elements(v, func(t *ast.Term) bool {
			n++
			if x, ok := t.Value.(ast.Number); ok {
				if d := numberSize(x); d > 15 {
					work = satAdd(work, satMul(d, d))
					longest = max(longest, d)
				}
			}
			return false
		})
		f := factor
		if f == 0 {
			f = int64(bits.Len64(uint64(n)))
		}
		if work == 0 || work <= MaxDigitWork/max(f, 1) {
			return nil
		}
		return &refusal{would: fmt.Sprintf("to convert %d long numbers of up to %d digits (%d digit²)", n, longest, satMul(work, f)), limit: workTxt}
	}
}

// numberSize is the digits OPA converts to read x exactly: its spelling's, or, written with an
// exponent, those of its value (1e30000 is read as 30001 digits).
func numberSize(x ast.Number) int64 {
	d := int64(len(x))
	if strings.ContainsAny(string(x), "eE") {
		if l, ok := log10Abs(string(x)); ok {
			d = max(d, int64(math.Ceil(math.Abs(l)))+1)
		}
	}
	return d
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// numberDigits counts the digits of a number's spelling (mantissa and exponent).
func numberDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// boundToNumber: to_number of a string of more than MaxNumberDigits digits.
func boundToNumber(operands []*ast.Term) *refusal {
	s, ok := operand(operands, 0).(ast.String)
	if !ok {
		return nil
	}
	if d := numberDigits(string(s)); d > MaxNumberDigits {
		return &refusal{would: fmt.Sprintf("a number of %d digits", d), limit: digitsTxt}
	}
	return nil
}

// boundUnits: units.parse and units.parse_bytes read a number of at most MaxNumberDigits
// digits and make one of at most MaxNumberBits bits, the unit's factor (at most 2^60) included.
func boundUnits(operands []*ast.Term) *refusal {
	s, ok := operand(operands, 0).(ast.String)
	if !ok {
		return nil
	}
	t := strings.ReplaceAll(string(s), `"`, "")
	if d := numberDigits(t); d > MaxNumberDigits {
		return &refusal{would: fmt.Sprintf("a number of %d digits", d), limit: digitsTxt}
	}
	end := strings.IndexFunc(t, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == 'e' || r == 'E' || r == '+' || r == '-')
	})
	if end < 0 {
		end = len(t)
	}
	num := strings.TrimRight(t[:end], "eE+-") // "10e" is 10 with the unit e (exa)
	l, ok := log10Abs(num)
	if !ok {
		return nil // OPA reports it
	}
	return checkMagnitude(l + 60*math.Log10(2))
}

// Strings.

// checkString refuses a string of more than MaxStringBytes bytes.
func checkString(n int64, what string) *refusal {
	if n <= MaxStringBytes {
		return nil
	}
	return &refusal{would: fmt.Sprintf("a string of %s%d bytes", what, n), limit: stringTxt}
}

// boundSprintf estimates the length of sprintf's result from above, reading the format as fmt
// does: the format's own bytes, and for each verb the larger of its width and the text of its
// argument (verbTextSize) plus its precision, and a few bytes for fmt's markers (%!d(MISSING) and
// the like); an argument no verb takes is printed once (%!(EXTRA …)). A width or precision taken
// from an argument ('*') is that argument, at most 10^6 as in fmt. Once the format reorders its
// arguments ("%[2]d"), each verb is counted with the largest argument, and every argument once
// more.
func boundSprintf(operands []*ast.Term) *refusal {
	format, ok := operand(operands, 0).(ast.String)
	if !ok {
		return nil
	}
	args, ok := operand(operands, 1).(*ast.Array)
	if !ok {
		return nil
	}
	return checkString(sprintfSize(string(format), args), "about ")
}

// sprintfSize is boundSprintf's estimate.
func sprintfSize(f string, args *ast.Array) int64 {
	n := int64(len(f))
	argNum, reordered := 0, false
	used := make([]bool, args.Len())
	take := func() ast.Value {
		k := argNum
		argNum++
		if k < 0 || k >= args.Len() {
			return nil
		}
		used[k] = true
		return args.Elem(k).Value
	}
	const starMax = 1e6        // fmt's bound on a width or precision taken from an argument
	index := func(i int) int { // as fmt's argNumber
		if i >= len(f) || f[i] != '[' {
			return i
		}
		reordered = true
		j := strings.IndexByte(f[i+1:], ']')
		if j < 0 || len(f)-i < 3 {
			return i + 1 // fmt skips the '[' alone
		}
		end := i + 1 + j
		if k, err := strconv.Atoi(f[i+1 : end]); err == nil && allDigits(f[i+1:end]) && k >= 1 && k <= args.Len() {
			argNum = k - 1
		}
		return end + 1
	}
	number := func(i int) (int, int64) {
		i = index(i)
		if i < len(f) && f[i] == '*' {
			v := int64(starMax)
			if x, ok := take().(ast.Number); ok && !reordered {
				if k, ok := x.Int64(); ok && k >= -starMax && k <= starMax {
					v = max(k, -k)
				}
			}
			return i + 1, v
		}
		v := int64(0)
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			v = min(v*10+int64(f[i]-'0'), 1<<40)
			i++
		}
		return i, v
	}
	for i := 0; i < len(f); {
		if f[i] != '%' {
			i++
			continue
		}
		i++
		start := i
		sharp := false
		for i < len(f) && strings.IndexByte("+-# 0", f[i]) >= 0 {
			sharp = sharp || f[i] == '#'
			i++
		}
		var width, prec int64
		i, width = number(i)
		if i < len(f) && f[i] == '.' {
			i, prec = number(i + 1)
		}
		i = index(i)
		if i >= len(f) {
			n = satAdd(n, satAdd(width, prec)+markers) // %!(NOVERB), padded to the width
			break
		}
		verb, size := utf8.DecodeRuneInString(f[i:])
		i += size
		if verb == '%' {
			if i-size > start {
				n = satAdd(n, markers) // "%*%": a width fmt ignores, or %!(BADWIDTH)
			}
			continue
		}
		var text int64
		if reordered {
			for k := range args.Len() {
				text = max(text, verbTextSize(args.Elem(k).Value, verb, sharp))
			}
		} else {
			text = verbTextSize(take(), verb, sharp)
		}
		n = satAdd(n, max(width, satAdd(text, prec))+markers)
	}
	for k, u := range used {
		if !u || reordered {
			n = satAdd(n, verbTextSize(args.Elem(k).Value, 'v', false)+markers)
		}
	}
	return n
}

// markers bounds the bytes of one of fmt's markers around a verb or an argument: %!d(BADWIDTH),
// %!(BADINDEX), %!(EXTRA float64=…) and the like, the argument's text aside.
const markers = 64

// verbTextSize bounds the text fmt writes for one argument of sprintf (as OPA passes it: a
// string as itself, a number as an int64, a *big.Int, a float64 or its spelling, anything else
// as its Rego text) with the verb, precision aside: a string once (%s, %v), five times (%x, and
// "% #x" writes "0x61 " a byte) or four times and its quotes (%q, %#v: \x00 a byte); a number at
// least as long as float64's %f (309 digits), four times its spelling (%b of a big integer);
// another value four times its text (quoted strings in it).
func verbTextSize(v ast.Value, verb rune, sharp bool) int64 {
	var n int64
	switch x := v.(type) {
	case nil:
		return markers // %!d(MISSING)
	case ast.String:
		n = int64(len(x))
	case ast.Number:
		return max(4*int64(len(x)), 330)
	default:
		s := sizer{limit: MaxStringBytes}
		s.value(v, 0)
		n = satMul(4, s.n)
	}
	switch {
	case verb == 's' || verb == 'v' && !sharp:
		return n
	case verb == 'x' || verb == 'X':
		return satMul(5, n) + 2
	}
	return satMul(4, n) + 2
}

// boundConcat: concat(sep, xs) is the strings' bytes and count(xs)-1 separators.
func boundConcat(operands []*ast.Term) *refusal {
	sep, ok := operand(operands, 0).(ast.String)
	if !ok {
		return nil
	}
	var n, count int64
	elements(operand(operands, 1), func(t *ast.Term) bool {
		if s, ok := t.Value.(ast.String); ok {
			n += int64(len(s))
		}
		count++
		return false
	})
	if count > 1 {
		n = satAdd(n, satMul(int64(len(sep)), count-1))
	}
	return checkString(n, "")
}

// boundReplace: replace(s, old, new) grows s by len(new)-len(old) a match ("" matches before
// every character and at the end).
func boundReplace(operands []*ast.Term) *refusal {
	s, ok1 := operand(operands, 0).(ast.String)
	old, ok2 := operand(operands, 1).(ast.String)
	repl, ok3 := operand(operands, 2).(ast.String)
	if !ok1 || !ok2 || !ok3 || len(repl) <= len(old) {
		return nil
	}
	grow := int64(len(repl) - len(old))
	if r := checkString(satAdd(int64(len(s)), satMul(int64(len(s))+1, grow)), ""); r == nil {
		return nil // even a match at every byte stays within the limit
	}
	return checkString(satAdd(int64(len(s)), satMul(int64(strings.Count(string(s), string(old))), grow)), "")
}

// boundReplaceN: strings.replace_n(patterns, s) replaces, left to right, the patterns OPA's
// replacer finds; the result's length is counted by running the same replacer into a counter.
func boundReplaceN(operands []*ast.Term) *refusal {
	patterns, ok1 := operand(operands, 0).(ast.Object)
	s, ok2 := operand(operands, 1).(ast.String)
	if !ok1 || !ok2 {
		return nil
	}
	keys := slices.SortedFunc(slices.Values(patterns.Keys()), ast.TermValueCompare)
	pairs := make([]string, 0, 2*len(keys))
	grow := int64(0)
	for _, k := range keys {
		ks, ok := k.Value.(ast.String)
		vs, ok2 := patterns.Get(k).Value.(ast.String)
		if !ok || !ok2 {
			return nil // OPA reports it
		}
		pairs = append(pairs, string(ks), string(vs))
		grow = max(grow, int64(len(vs)-len(ks)))
	}
	if grow <= 0 || checkString(satAdd(int64(len(s)), satMul(int64(len(s))+1, grow)), "") == nil {
		return nil
	}
	var c counter
	if _, err := strings.NewReplacer(pairs...).WriteString(&c, string(s)); err != nil {
		return nil
	}
	return checkString(c.n, "")
}

// counter counts the bytes written to it, and keeps none.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// WriteString counts s.
func (c *counter) WriteString(s string) (int, error) { c.n += int64(len(s)); return len(s), nil }

// boundRegexReplace: regex.replace(s, pattern, value) writes value for each match, each $
// reference in it expanding to at most the match; the matches are counted only when the bound
// with a match at every byte passes the limit.
func boundRegexReplace(operands []*ast.Term) *refusal {
	s, ok1 := operand(operands, 0).(ast.String)
	pattern, ok2 := operand(operands, 1).(ast.String)
	value, ok3 := operand(operands, 2).(ast.String)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	refs := int64(strings.Count(string(value), "$"))
	ls := int64(len(s))
	size := func(matches int64) int64 {
		return satAdd(satAdd(ls, satMul(matches, int64(len(value)))), satMul(refs, ls))
	}
	if checkString(size(ls+1), "") == nil {
		return nil
	}
	re, err := regexp.Compile(string(pattern))
	if err != nil {
		return nil // OPA reports it
	}
	matches := int64(len(re.FindAllStringIndex(string(s), -1)))
	return checkString(size(matches), "")
}

// boundMarshal bounds json.marshal's text (yaml.marshal's: indented by depth) by walking the
// value, shared parts as often as they occur, and stopping at the limit.
func boundMarshal(yaml bool) bound {
	return func(operands []*ast.Term) *refusal {
		v := operand(operands, 0)
		if v == nil {
			return nil
		}
		s := sizer{limit: MaxStringBytes}
		if yaml {
			s.pretty, s.indent = true, 4
		}
		if s.value(v, 0) {
			return nil
		}
		return s.refusal()
	}
}

// boundMarshalWithOptions: json.marshal_with_options, pretty-printed as OPA decides from the
// options (indent "\t" unless given, prefix "" unless given): every line holds the prefix and
// the indent once per level.
func boundMarshalWithOptions(operands []*ast.Term) *refusal {
	v := operand(operands, 0)
	opts, ok := operand(operands, 1).(ast.Object)
	if v == nil || !ok {
		return nil
	}
	indent, prefix := int64(1), int64(0)
	implicit, explicit, pretty := false, false, false
	bad := opts.Until(func(k, val *ast.Term) bool {
		key, ok := k.Value.(ast.String)
		if !ok {
			return true
		}
		switch key {
		case "prefix", "indent":
			s, ok := val.Value.(ast.String)
			if !ok {
				return true
			}
			if key == "prefix" {
				prefix = int64(len(s))
			} else {
				indent = int64(len(s))
			}
			implicit = true
		case "pretty":
			b, ok := val.Value.(ast.Boolean)
			if !ok {
				return true
			}
			explicit, pretty = true, bool(b)
		default:
			return true
		}
		return false
	})
	if bad {
		return nil // OPA reports it
	}
	if !explicit {
		pretty = implicit
	}
	s := sizer{limit: MaxStringBytes, pretty: pretty, indent: indent, prefix: prefix}
	s.n = prefix
	if s.value(v, 0) {
		return nil
	}
	return s.refusal()
}

// sizer adds up the length of a value's JSON text — each character once, escapes aside — and,
// when pretty, a line (its prefix and its indentation) for every element, walking shared parts
// as often as they occur, and stops as soon as the total passes limit.
type sizer struct {
	n, limit       int64
	pretty         bool
	indent, prefix int64
}

// refusal is the refusal of a text the sizer stopped counting at its limit.
func (s *sizer) refusal() *refusal {
	return &refusal{would: fmt.Sprintf("a string of more than %d bytes", s.limit), limit: stringTxt}
}

// add adds k and reports whether the total is still within the limit.
func (s *sizer) add(k int64) bool {
	s.n = satAdd(s.n, k)
	return s.n <= s.limit
}

// line is the bytes of a new line at depth d.
func (s *sizer) line(d int64) int64 {
	if !s.pretty {
		return 0
	}
	return 1 + s.prefix + satMul(d, s.indent)
}

// value adds v's text at depth d and reports whether the total is still within the limit.
func (s *sizer) value(v ast.Value, d int64) bool {
	switch x := v.(type) {
	case ast.String:
		return s.add(int64(len(x)) + 2)
	case ast.Number:
		return s.add(int64(len(x)))
	case ast.Boolean, ast.Null:
		return s.add(5)
	case *ast.Array:
		if !s.add(2 + s.line(d)) {
			return false
		}
		return !x.Until(func(t *ast.Term) bool { return !s.add(1+s.line(d+1)) || !s.value(t.Value, d+1) })
	case ast.Set:
		if !s.add(2 + s.line(d)) {
			return false
		}
		return !x.Until(func(t *ast.Term) bool { return !s.add(1+s.line(d+1)) || !s.value(t.Value, d+1) })
	case ast.Object:
		if !s.add(2 + s.line(d)) {
			return false
		}
		return !x.Until(func(k, t *ast.Term) bool {
			return !s.add(3+s.line(d+1)) || !s.value(k.Value, d+1) || !s.value(t.Value, d+1)
		})
	}
	return s.add(int64(len(v.String())))
}

// Arrays.

// checkArray refuses an array of more than MaxArrayElements elements, or whose elements'
// strings and numbers hash more than MaxHashBytes.
func checkArray(elems, hashed int64) *refusal {
	if elems > MaxArrayElements {
		return &refusal{would: fmt.Sprintf("an array of %d elements", elems), limit: elementTxt}
	}
	if hashed > MaxHashBytes {
		return &refusal{would: fmt.Sprintf("an array whose %d elements hash %d bytes", elems, hashed), limit: hashTxt}
	}
	return nil
}

// hashBytes is what OPA hashes of an element when it puts it in a new array.
func hashBytes(v ast.Value) int64 {
	switch x := v.(type) {
	case ast.String:
		return int64(len(x))
	case ast.Number:
		return int64(len(x))
	}
	return 0
}

// arrayCost adds up an array's elements and the bytes they hash.
func arrayCost(a *ast.Array) (elems, hashed int64) {
	a.Foreach(func(t *ast.Term) {
		hashed = satAdd(hashed, hashBytes(t.Value))
	})
	return int64(a.Len()), hashed
}

func boundArrayConcat(operands []*ast.Term) *refusal {
	a, ok1 := operand(operands, 0).(*ast.Array)
	b, ok2 := operand(operands, 1).(*ast.Array)
	if !ok1 || !ok2 || a.Len() == 0 || b.Len() == 0 {
		return nil // OPA returns an operand as it is
	}
	ea, ha := arrayCost(a)
	eb, hb := arrayCost(b)
	return checkArray(ea+eb, satAdd(ha, hb))
}

// boundArrayFlatten: array.flatten lifts the elements of the nested arrays one level.
func boundArrayFlatten(operands []*ast.Term) *refusal {
	a, ok := operand(operands, 0).(*ast.Array)
	if !ok {
		return nil
	}
	var elems, hashed int64
	a.Foreach(func(t *ast.Term) {
		if nested, ok := t.Value.(*ast.Array); ok {
			e, h := arrayCost(nested)
			elems, hashed = satAdd(elems, e), satAdd(hashed, h)
			return
		}
		elems++
		hashed = satAdd(hashed, hashBytes(t.Value))
	})
	return checkArray(elems, hashed)
}

func boundArrayReverse(operands []*ast.Term) *refusal {
	a, ok := operand(operands, 0).(*ast.Array)
	if !ok || a.Len() < 2 {
		return nil
	}
	return checkArray(arrayCost(a))
}

// boundSplit: split(s, sep) and strings.split_n(s, sep, n) make one element per separator and
// one more ("" separates every character); only a string longer than the limit can pass it.
func boundSplit(operands []*ast.Term) *refusal {
	s, ok1 := operand(operands, 0).(ast.String)
	sep, ok2 := operand(operands, 1).(ast.String)
	if !ok1 || !ok2 || len(s) < MaxArrayElements {
		return nil
	}
	parts := int64(strings.Count(string(s), string(sep))) + 1
	if n, ok := operand(operands, 2).(ast.Number); ok {
		if i, ok := n.Int64(); ok && i >= 0 {
			parts = min(parts, i)
		}
	}
	return checkArray(parts, 0)
}

// boundIndexOfN: indexof_n(s, t) makes one element per (overlapping) occurrence; only a string
// longer than the limit can pass it.
func boundIndexOfN(operands []*ast.Term) *refusal {
	s, ok1 := operand(operands, 0).(ast.String)
	t, ok2 := operand(operands, 1).(ast.String)
	if !ok1 || !ok2 || len(t) == 0 || len(s) < MaxArrayElements {
		return nil
	}
	n := int64(0)
	for off := 0; ; {
		i := strings.Index(string(s[off:]), string(t))
		if i < 0 {
			break
		}
		n++
		off += i + 1
	}
	return checkArray(n, 0)
}
