package escape

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/contractcheck/contractcheck/internal/hostile"
)

func TestTerminal(t *testing.T) {
	// exact is TerminalExact's output where it differs from Terminal's (want).
	tests := []struct{ name, in, want, exact string }{
		{name: "plain", in: "structuredContent kept at D1", want: "structuredContent kept at D1"},
		{name: "line breaks", in: "a\nb\r\tc", want: `a\nb\r\tc`},
		{name: "escape and bell", in: "\x1b[31mred\a", want: `\u001b[31mred\u0007`},
		{name: "nul and del", in: "\x00\x7f", want: `\u0000\u007f`},
		{name: "c1", in: "\u009b", want: `\u009b`},
		{name: "bidi", in: "a\u202eb\u2066", want: `a\u202eb\u2066`},
		{name: "separators", in: "\u2028\u2029", want: `\u2028\u2029`},
		{name: "tag character", in: "\U000e0041", want: `\U000e0041`},
		{name: "kept", in: "表🙂é \\ \"", want: "表🙂é \\ \""},
		{name: "invalid utf-8", in: "a\xffb", want: "a\ufffdb"},
		{name: "a path's backslash kept", in: `C:\dir\file`, want: `C:\dir\file`},
		{name: "a spelt escape", in: `\u001b[31m`, want: `\u001b[31m`, exact: `\\u001b[31m`},
		{name: "a spelt escape beside a real one", in: "\\u001b\x1b", want: `\u001b\u001b`, exact: `\\u001b\u001b`},
		{name: "a spelt line break", in: `a\nb`, want: `a\nb`, exact: `a\\nb`},
		{name: "backslashes", in: `a\\b`, want: `a\\b`, exact: `a\\\b`},
		{name: "a backslash before a control", in: "\\\x10", want: `\\u0010`, exact: `\\\u0010`},
		{name: "a trailing backslash", in: `a\`, want: `a\`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Terminal(tc.in); got != tc.want {
				t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
			}
			exact := tc.exact
			if exact == "" {
				exact = tc.want
			}
			if got := TerminalExact(tc.in); got != exact {
				t.Errorf("TerminalExact(%q) = %q, want %q", tc.in, got, exact)
			}
		})
	}
}

func TestNeutralizeLine(t *testing.T) {
	checkCases(t, "NeutralizeLine", NeutralizeLine, []fnCase[string, string]{
		{name: "github", in: "::error file=x::y", want: `\u003a:error file=x::y`},
		{name: "indented", in: "  \t::add-mask::s\n", want: "  \t\\u003a:add-mask::s\n"},
		{name: "azure", in: "##vso[task.complete]", want: `\u0023#vso[task.complete]`},
		{name: "azure group", in: "##[group]x", want: `\u0023#[group]x`},
		{name: "not at start", in: "a ::error::x", want: "a ::error::x"},
		{name: "one colon", in: ":x", want: ":x"},
		{name: "markdown heading", in: "## Heading", want: "## Heading"},
	})
}

// logWrite writes in through a LogWriter in chunks of n bytes.
func logWrite(t testing.TB, in []byte, n int) string {
	var out bytes.Buffer
	w := NewLogWriter(&out)
	for len(in) > 0 {
		k := min(n, len(in))
		if _, err := w.Write(in[:k]); err != nil {
			t.Fatal(err)
		}
		in = in[k:]
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// wantLog is what a LogWriter must write for in: each line neutralized.
func wantLog(in string) string {
	lines := strings.SplitAfter(in, "\n")
	for i, l := range lines {
		lines[i] = NeutralizeLine(l)
	}
	return strings.Join(lines, "")
}

func TestLogWriter(t *testing.T) {
	in := "ok\n::error::x\n" + strings.Repeat(" ", 100) + "::warning::far\n   ::debug::y" + "\n##vso[x]\nend ::x"
	for _, n := range []int{1, 2, 3, 7, 64, 65, 1 << 20} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			got := logWrite(t, []byte(in), n)
			if want := wantLog(in); got != want {
				t.Errorf("chunks of %d:\n got %q\nwant %q", n, got, want)
			}
			for l := range strings.Lines(got) {
				if CommandStart(l) {
					t.Errorf("line starts a command: %q", l)
				}
			}
		})
	}
}

func FuzzLogWriter(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, in []byte, n int) {
		if n <= 0 {
			n = 1
		}
		got := logWrite(t, in, n)
		if want := wantLog(string(in)); got != want {
			t.Fatalf("chunks of %d: got %q, want %q", n, got, want)
		}
		for l := range strings.Lines(got) {
			if CommandStart(l) {
				t.Fatalf("line starts a command: %q", l)
			}
		}
	})
}

// unescape reads back a string written with the escapes of this package: \n \r \t, \xXX (a code
// point), \uXXXX (joining UTF-16 surrogate pairs when pairs is set) and \UXXXXXXXX, and '\'
// before any other character standing for that character.
// unescapeTerminal reads Terminal's output back: a backslash starts an escape only where one
// follows it (escapeLen), and is itself otherwise.
func unescapeTerminal(t testing.TB, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		n := escapeLen(s[i:])
		if s[i] != '\\' || n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(unescape(t, s[i:i+n], false))
		i += n
	}
	return b.String()
}

func unescape(t testing.TB, s string, pairs bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			t.Fatalf("dangling backslash in %q", s)
		}
		width := 0
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		default:
			b.WriteByte(s[i])
		}
		if width == 0 {
			continue
		}
		v, err := strconv.ParseUint(s[i+1:i+1+width], 16, 32)
		if err != nil {
			t.Fatalf("bad escape in %q: %v", s, err)
		}
		i += width
		r := rune(v)
		if pairs && r >= 0xd800 && r < 0xdc00 && strings.HasPrefix(s[i+1:], `\u`) {
			lo, _ := strconv.ParseUint(s[i+3:i+7], 16, 32)
			r = (r-0xd800)<<10 + (rune(lo) - 0xdc00) + 0x10000
			i += 6
		}
		b.WriteRune(r)
	}
	return b.String()
}

// short cuts s for a failure message.
func short(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func checkLiteral(t *testing.T, name, lit, s string, pairs bool) {
	t.Helper()
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		t.Fatalf("%s(%q) = %s: not a double-quoted literal", name, s, lit)
	}
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c < 0x20 || c >= 0x7f {
			t.Fatalf("%s(%q) = %s: byte %#x is not printable ASCII", name, s, lit, c)
		}
	}
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			i++
		} else if body[i] == '"' {
			t.Fatalf("%s(%q) = %s: an unescaped quote ends the literal early", name, s, lit)
		}
	}
	if got := unescape(t, body, pairs); got != ValidUTF8(s) {
		t.Fatalf("%s(%q) = %s reads back as %q", name, s, lit, got)
	}
}

func FuzzCodeLiterals(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkLiteral(t, "Python", Python(s), s, false)
		checkLiteral(t, "JavaScript", JavaScript(s), s, true)
		j := JSON(s)
		var back string
		if err := json.Unmarshal([]byte(j), &back); err != nil || back != ValidUTF8(s) {
			t.Fatalf("JSON(%q) = %s reads back as %q, %v", s, j, back, err)
		}
		for _, r := range j {
			if !visible(r) && r != utf8.RuneError {
				t.Fatalf("JSON(%q) = %s holds %U", s, j, r)
			}
		}
		lit := Go(s)
		got, err := strconv.Unquote(lit)
		if err != nil || got != ValidUTF8(s) {
			t.Fatalf("Go(%q) = %s reads back as %q, %v", s, lit, got, err)
		}
	})
}

func FuzzTerminal(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Terminal(s), TerminalExact(s), TAPDescription(s), Markdown(s), MarkdownCode(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: output %q is not UTF-8", s, out)
			}
			for _, r := range out {
				if r != utf8.RuneError && !visible(r) {
					t.Fatalf("%q: output %q holds %U", s, out, r)
				}
			}
		}
		if got := unescapeTerminal(t, TerminalExact(s)); got != ValidUTF8(s) {
			t.Fatalf("TerminalExact(%q) = %q reads back as %q", s, TerminalExact(s), got)
		}
		if strings.Contains(s, `\`) {
			return // Terminal keeps a backslash as it is: what it writes is for reading only
		}
		if got := unescape(t, Terminal(s), false); got != ValidUTF8(s) {
			t.Fatalf("Terminal(%q) = %q reads back as %q", s, Terminal(s), got)
		}
	})
}

func FuzzYAMLString(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := YAMLString(s)
		if strings.ContainsAny(lit, "\n\r") {
			t.Fatalf("YAMLString(%q) = %s spans lines", s, lit)
		}
		var doc map[string]string
		if err := yaml.Unmarshal([]byte("k: "+lit+"\n"), &doc); err != nil {
			t.Fatalf("YAMLString(%q) = %s does not parse: %v", short(s), short(lit), err)
		}
		if got := doc["k"]; got != ValidUTF8(s) {
			t.Fatalf("YAMLString(%q) = %s reads back as %q", short(s), short(lit), short(got))
		}
	})
}

func TestMarkdown(t *testing.T) {
	checkCases(t, "Markdown", Markdown, []fnCase[string, string]{
		{name: "plain", in: "lane 1 2", want: "lane 1 2"},
		{name: "pipe", in: "a|b", want: `a\|b`},
		{name: "html", in: "<script>&", want: "&lt;script&gt;&amp;"},
		{name: "newline", in: "a\n| b", want: `a\n\| b`},
		{name: "emphasis", in: "*a* _b_ [c](d)", want: `\*a\* \_b\_ \[c\]\(d\)`},
		{name: "code", in: "`x`", want: "\\`x\\`"},
	})
}

func TestMarkdownCode(t *testing.T) {
	checkCases(t, "MarkdownCode", MarkdownCode, []fnCase[string, string]{
		{name: "plain", in: "/a/b", want: "`/a/b`"},
		{name: "backquotes", in: "a``b", want: "```a``b```"},
		{name: "edge backquote", in: "`a", want: "`` `a ``"},
		{name: "pipe and newline", in: "a|\nb", want: "`a\\|\\nb`"},
	})
}

func TestTAPDescription(t *testing.T) {
	if got, want := TAPDescription("a # SKIP\nnot ok 2 \\"), `a \# SKIP\nnot ok 2 \\`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestInterpreters runs the literals of the whole corpus through python3 and node, where they
// are installed, and checks that each reads back as the string and that nothing else runs.
func TestInterpreters(t *testing.T) {
	cases := hostile.Cases()
	dir := t.TempDir()
	type lang struct {
		bin, file string
		lit       func(string) string
		line      func(lit string) string
	}
	for _, l := range []lang{
		{"python3", "t.py", Python, func(lit string) string {
			return "print((" + lit + ").encode('utf-8').hex())\n"
		}},
		{"node", "t.js", JavaScript, func(lit string) string {
			return "console.log(Buffer.from(" + lit + ", 'utf8').toString('hex'));\n"
		}},
	} {
		t.Run(l.bin, func(t *testing.T) {
			bin, err := exec.LookPath(l.bin)
			if err != nil {
				t.Skipf("%s not installed", l.bin)
			}
			var src strings.Builder
			for _, c := range cases {
				src.WriteString(l.line(l.lit(c.S)))
			}
			p := filepath.Join(dir, l.file)
			if err := os.WriteFile(p, []byte(src.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, p).Output()
			if err != nil {
				t.Fatalf("%s: %v", l.bin, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(got) != len(cases) {
				t.Fatalf("%s printed %d strings, want %d", l.bin, len(got), len(cases))
			}
			for i, c := range cases {
				if want := hex.EncodeToString([]byte(ValidUTF8(c.S))); got[i] != want {
					t.Errorf("%s: %s reads back as %s", l.bin, c.Name, short(got[i]))
				}
			}
		})
	}
}

// TestShell: Shell shows a command line to a user, ShellJoin writes one for a program that splits
// it (shlex.split, shell-words): alike for a word of graphic characters, but where Shell shows a
// line break, an escape or invalid UTF-8 as bash's $'…', ShellJoin keeps it in single quotes as
// it is.
func TestShell(t *testing.T) {
	tests := []struct {
		name         string
		words        []string
		want, joined string
	}{
		{name: "plain", words: []string{"contractcheck", "check", "--output", "a/b.json"}, want: "contractcheck check --output a/b.json", joined: "contractcheck check --output a/b.json"},
		{name: "space and quote", words: []string{"it's here"}, want: `'it'\''s here'`, joined: `'it'\''s here'`},
		{name: "empty", words: []string{"", "x"}, want: "'' x", joined: "'' x"},
		{name: "line break", words: []string{"a\nb"}, want: `$'a\nb'`, joined: "'a\nb'"},
		{name: "escape and bidi", words: []string{"\x1b[2J\u202e'"}, want: `$'\x1b[2J\u202e\''`, joined: "'\x1b[2J\u202e'\\'''"},
		{name: "invalid utf-8", words: []string{"a\xffb"}, want: `$'a\xffb'`, joined: "'a\xffb'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Shell(tc.words...); got != tc.want {
				t.Errorf("Shell(%q) = %s, want %s", tc.words, got, tc.want)
			}
			if got := ShellJoin(tc.words); got != tc.joined {
				t.Errorf("ShellJoin(%q) = %q, want %q", tc.words, got, tc.joined)
			}
		})
	}
}

// TestShellReadBack reads every corpus string (but those holding NUL, which no argument can hold)
// back through the shell each quoting is for, where it is installed: Shell's line, one line
// whatever the string holds, through bash (its $'…' words are bash's); ShellJoin's through sh.
func TestShellReadBack(t *testing.T) {
	for _, c := range hostile.Cases() {
		if strings.Contains(c.S, "\x00") || c.Name == "long" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			line := Shell(c.S)
			if strings.ContainsAny(line, "\n\r") {
				t.Fatalf("Shell(%q) = %s spans lines", short(c.S), short(line))
			}
			readBack(t, "bash", "printf %s "+line, c.S)
			readBack(t, "sh", ShellJoin([]string{"printf", "%s", c.S}), c.S)
		})
	}
}

// readBack runs line, a command that prints want, in shell (when it is installed) and requires
// want back.
func readBack(t *testing.T, shell, line, want string) {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Logf("%s not installed", shell)
		return
	}
	out, err := exec.Command(path, "-c", line).Output()
	if err != nil {
		t.Fatalf("%s: %v", shell, err)
	}
	if string(out) != want {
		t.Errorf("%s -c %s: printed %q, want %q", shell, short(line), short(string(out)), short(want))
	}
}

func TestShort(t *testing.T) {
	checkCases(t, "Short", Short, []fnCase[rune, string]{
		{name: "line feed", in: '\n', want: `\n`},
		{name: "carriage return", in: '\r', want: `\r`},
		{name: "tab", in: '\t', want: `\t`},
		{name: "another control", in: '\x1b', want: ""},
		{name: "a letter", in: 'n', want: ""},
		{name: "line separator", in: '\u2028', want: ""},
	})
}

// TestJSONRune: a character is its \uXXXX escape, beyond the basic plane a surrogate pair, and
// each reads back as the character.
func TestJSONRune(t *testing.T) {
	tests := []fnCase[rune, string]{
		{name: "control", in: '\x1b', want: `\u001b`},
		{name: "latin letter", in: 'é', want: `\u00e9`},
		{name: "line separator", in: '\u2028', want: `\u2028`},
		{name: "bidi override", in: '\u202e', want: `\u202e`},
		{name: "replacement character", in: '\ufffd', want: `\ufffd`},
		{name: "beyond the basic plane", in: '\U0001f600', want: `\ud83d\ude00`},
	}
	checkCases(t, "JSONRune", JSONRune, tests)
	for _, tc := range tests {
		var back string
		if err := json.Unmarshal([]byte(`"`+JSONRune(tc.in)+`"`), &back); err != nil || back != string(tc.in) {
			t.Errorf("%s: %s reads back as %q (%v), want %q", tc.name, JSONRune(tc.in), back, err, string(tc.in))
		}
	}
}

// TestShellWords: ShellWords splits a command line as a POSIX shell does, expanding nothing.
func TestShellWords(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "plain", in: "contractcheck serve --stdio", want: []string{"contractcheck", "serve", "--stdio"}},
		{name: "extra blanks", in: "  a \t b\n c  ", want: []string{"a", "b", "c"}},
		{name: "empty", in: "", want: nil},
		{name: "single quotes", in: `'/tmp/my dir/cc' 'a"b\c'`, want: []string{"/tmp/my dir/cc", `a"b\c`}},
		{name: "double quotes", in: `"a b" "x\"y" "\$HOME" "back\\slash" "keep\n"`, want: []string{"a b", `x"y`, "$HOME", `back\slash`, `keep\n`}},
		{name: "backslash outside quotes", in: `a\ b c\\d \'e`, want: []string{"a b", `c\d`, "'e"}},
		{name: "adjacent parts join", in: `pre'fix'"mid"post`, want: []string{"prefixmidpost"}},
		{name: "empty quoted words", in: `'' ""`, want: []string{"", ""}},
		{name: "line continuation", in: "a\\\nb", want: []string{"ab"}},
		{name: "unterminated single", in: `a 'b`, wantErr: "unterminated single quote"},
		{name: "unterminated double", in: `a "b`, wantErr: "unterminated double quote"},
		{name: "trailing backslash", in: `a\`, wantErr: "trailing backslash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShellWords(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ShellWords(%q) = %q, %v; want error %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("ShellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestShellWordsReadsShellJoin: ShellWords is ShellJoin's inverse, for every corpus string.
func TestShellWordsReadsShellJoin(t *testing.T) {
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			words := []string{"cmd", c.S, "", "it's"}
			got, err := ShellWords(ShellJoin(words))
			if err != nil || !slices.Equal(got, words) {
				t.Fatalf("ShellWords(ShellJoin(%q)) = %q, %v", short(c.S), got, err)
			}
		})
	}
}
