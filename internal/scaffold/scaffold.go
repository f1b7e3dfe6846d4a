// Package scaffold writes starting points for a user's own contract layers: `contractcheck init`
// writes a small working layer (one custom task with its atom, CUE, Rego and Rego test, a profile
// that requires it, a README), and `contractcheck export` writes the built-in files for reading
// or forking. Both write a whole directory at once: into a temporary directory beside the target,
// renamed into place at the end, so a failure leaves nothing half-written, and neither ever writes
// into a directory that holds files.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/template"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

//go:embed layer
var templates embed.FS

// InitOptions are the choices of an init.
type InitOptions struct {
	// Dir is the layer directory to create; it must not exist or be empty.
	Dir string
	// Task is the custom task's id (default T6).
	Task string
	// Profile is the profile's name (default ProfileName(Dir): named after the layer).
	Profile string
	// Lanes are lanes the profile's requirement gates beside the control lane: an agent's lane,
	// which another layer declares (the record.cue of contractcheck record, probe's output). A
	// check of the layer then needs that layer beside it.
	Lanes []string
}

// BuiltinProfiles are the names of the built-in profiles (contracts/profiles*.cue): a layer's
// profile of the same name would be unified with the built-in one, so ProfileName never gives one.
var BuiltinProfiles = []string{"optional-null", "reported-fixes", "strict", "study", "withhold-private-meta"}

// profileName is what a profile's name may be (the contract model's names: internal/contract).
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// notInName is a run of characters a profile's name cannot hold, with the hyphens around it.
var notInName = regexp.MustCompile(`-*[^a-z0-9._-]+-*`)

// ProfileName is the profile init names after the layer directory dir: its last element, lower
// case, each run of characters a profile name cannot hold (space, punctuation, non-ASCII), with
// the hyphens beside it, made one "-", leading characters that cannot start one dropped ("my-layer" for my-layer and for
// ./layers/My Layer). When nothing is left, or the name is a built-in profile's
// (BuiltinProfiles), it is the task's: "links-" and the task id in lower case.
func ProfileName(dir, task string) string {
	base := filepath.Base(filepath.Clean(filepath.FromSlash(dir)))
	name := notInName.ReplaceAllString(strings.ToLower(base), "-")
	name = strings.TrimLeft(name, "._-")
	name = strings.TrimRight(name, "-")
	if !profileName.MatchString(name) || slices.Contains(BuiltinProfiles, name) {
		return "links-" + strings.ToLower(task)
	}
	return name
}

var taskID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// layerData fills the templates. The directory is the user's: it reaches the files only as a
// shell word (Shell, one line, for commands in comments and code blocks), as markdown text inside
// a line (Title: the heading's text after "# ", so '-' and '.' stay as they are) and as a markdown
// code span of the init command (InitCode). Profile is a profile name (profileName): it needs no
// escaping in CUE, markdown or a shell word.
type layerData struct {
	Shell, Title, InitCode, Base, Task, Atom, Package, Short, Profile string
	// Lanes is the requirement's lanes as a CUE list; Agents the lanes given beside the control
	// lane, as words for prose and comments ("" when none was given).
	Lanes, Agents string
}

// Init writes a working layer to opts.Dir and returns the files written, relative to it.
func Init(opts InitOptions) ([]string, error) {
	if opts.Task == "" {
		opts.Task = "T6"
	}
	if !taskID.MatchString(opts.Task) {
		return nil, fmt.Errorf("--task %q: a task id is a letter followed by letters, digits or _", opts.Task)
	}
	short := strings.ToLower(opts.Task)
	if opts.Profile == "" {
		opts.Profile = ProfileName(opts.Dir, opts.Task)
	}
	if !profileName.MatchString(opts.Profile) {
		return nil, fmt.Errorf("--profile %q: a profile name is a lower-case letter or digit followed by lower-case letters, digits, '.', '_' or '-'", opts.Profile)
	}
	if slices.Contains(BuiltinProfiles, opts.Profile) {
		return nil, fmt.Errorf("--profile %q: a built-in profile has this name (choose another)", opts.Profile)
	}
	lanes := []string{"direct"}
	for _, l := range opts.Lanes {
		if !profileName.MatchString(l) {
			return nil, fmt.Errorf("--lane %q: a lane name is a lower-case letter or digit followed by lower-case letters, digits, '.', '_' or '-'", l)
		}
		if !slices.Contains(lanes, l) {
			lanes = append(lanes, l)
		}
	}
	dir := filepath.ToSlash(opts.Dir)
	d := layerData{
		Lanes: `["` + strings.Join(lanes, `", "`) + `"]`, Agents: strings.Join(lanes[1:], ", "),
		Shell: escape.Shell(dir), Title: escape.MarkdownText(dir), InitCode: escape.MarkdownCode(escape.Shell("contractcheck", "init", dir)),
		Base: short, Task: opts.Task, Atom: "link.uri",
		Package: "custom.tasks." + short, Short: short, Profile: opts.Profile,
	}
	files := map[string][]byte{}
	err := fs.WalkDir(templates, "layer", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Parse(string(src))
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return err
		}
		name := strings.TrimSuffix(path.Base(p), ".tmpl")
		name = strings.Replace(name, "task", short, 1)
		files[name] = b.Bytes()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	return writeDir(opts.Dir, files)
}

// Parts lists the built-in directories export can write.
var Parts = []string{"contracts", "policies", "schemas", "fixtures"}

// Export writes the built-in directories named by parts (all when empty) below dir, as they are
// embedded, and returns the files written, relative to dir.
func Export(dir string, parts []string) ([]string, error) {
	if len(parts) == 0 {
		parts = Parts
	}
	files := map[string][]byte{}
	for _, part := range parts {
		if !slices.Contains(Parts, part) {
			return nil, fmt.Errorf("export: unknown part %q (one of %s)", part, strings.Join(Parts, ", "))
		}
		err := fs.WalkDir(contractcheck.Builtin, part, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := fs.ReadFile(contractcheck.Builtin, p)
			if err != nil {
				return err
			}
			files[p] = data
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", part, err)
		}
	}
	return writeDir(dir, files)
}

// writeDir creates dir holding files (slash-separated relative names), all or nothing
// (safeio.WriteTree): it refuses a dir that holds anything, so that nothing of the user's is
// overwritten. It returns the names written, sorted.
func writeDir(dir string, files map[string][]byte) ([]string, error) {
	if dir == "" {
		return nil, errors.New("no directory given")
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: the directory is not empty; nothing was written (choose a new directory)", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, safeio.PathCause(err))
	}
	if err := safeio.WriteTree(dir, files); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, safeio.PathCause(err))
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}
