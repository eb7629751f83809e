package builtin

import "strings"

// flagKind is what a command-line flag takes.
type flagKind uint8

const (
	flagBare     flagKind = iota + 1 // no value
	flagValue                        // a value (attached or the next word)
	flagPath                         // a value naming a file whose contents are read
	flagOptional                     // a value only when attached (-uno, --color=never)
	flagTwo                          // two values, the next two words (jq --arg NAME VALUE)
	flagNamePath                     // a name and then a file read (jq --slurpfile NAME FILE)
)

// flagSet is the flags a command accepts, by spelling ("-n", "--lines").
// A flag not in it makes the command unknown, and so not read-only.
type flagSet map[string]flagKind

// flags builds a flagSet from two compact descriptions. short lists
// single-letter flags; a letter followed by ':' takes a value, by '@' a
// file read, by '?' an optional attached value. long lists long flags
// separated by spaces, each "--name" (no value), "--name=" (a value),
// "--name=@" (a file read), "--name=?" (an optional attached value),
// "--name=2" (two values) or "--name=n@" (a name and a file read).
func flags(short, long string) flagSet {
	fs := flagSet{}
	for i := 0; i < len(short); i++ {
		c := short[i]
		kind := flagBare
		if i+1 < len(short) {
			switch short[i+1] {
			case ':':
				kind, i = flagValue, i+1
			case '@':
				kind, i = flagPath, i+1
			case '?':
				kind, i = flagOptional, i+1
			}
		}
		fs["-"+string(c)] = kind
	}
	for _, f := range strings.Fields(long) {
		name, suffix, _ := strings.Cut(f, "=")
		kind := flagBare
		if strings.Contains(f, "=") {
			switch suffix {
			case "":
				kind = flagValue
			case "@":
				kind = flagPath
			case "?":
				kind = flagOptional
			case "2":
				kind = flagTwo
			case "n@":
				kind = flagNamePath
			default:
				panic("builtin: bad long flag " + f)
			}
		}
		fs[name] = kind
	}
	return fs
}

// with returns a copy of fs with the flags of more added.
func (fs flagSet) with(more ...flagSet) flagSet {
	out := make(flagSet, len(fs))
	for k, v := range fs {
		out[k] = v
	}
	for _, m := range more {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// without returns a copy of fs without names.
func (fs flagSet) without(names ...string) flagSet {
	out := fs.with()
	for _, n := range names {
		delete(out, n)
	}
	return out
}

// arg is one word of a command, as the analysis knows it.
type arg struct {
	value string // the word's value, quotes removed; "" when !literal
	// literal is false for a word with an expansion ($VAR, $(…), …):
	// its value is known only when it runs.
	literal bool
	glob    bool // an unquoted *, ? or [ the shell expands
	tilde   bool // a leading unquoted ~ the shell expands
}

// parsedArgs is a command's words sorted into flags and operands.
type parsedArgs struct {
	flags map[string][]string // flag → its values, in order
	// vals are the flag values as words, for those taken from a word of
	// their own or attached: the path a value names keeps its ~.
	vals     map[string][]arg
	operands []arg
	reads    []arg // values of path flags: files read
	// numeric is set when a -NUM flag appeared (head -5, grep -3).
	numeric bool
	// dashValue is set when a flag took as its value a word of its own
	// that starts with "-": a program that takes that value only
	// attached reads the word as a flag (git log --format --output=FILE).
	dashValue bool
}

func (p *parsedArgs) has(names ...string) bool {
	for _, n := range names {
		if _, ok := p.flags[n]; ok {
			return true
		}
	}
	return false
}

// parseArgs sorts args by fs in GNU getopt's manner: flags may follow
// operands, "--" ends them, combined short flags (-la) and attached
// values (-n5, --lines=5) are split. It returns why the words do not
// parse ("" when they do): an unknown flag, a missing value, or a word
// with an expansion where a flag could be (it may expand to any flag).
// With numeric, -NUM is a flag. With firstOperandEnds (find-like and
// POSIX tools), flags end at the first operand.
func parseArgs(args []arg, fs flagSet, numeric, firstOperandEnds bool) (parsedArgs, string) {
	p := parsedArgs{flags: map[string][]string{}, vals: map[string][]arg{}}
	add := func(name string, vals ...string) { p.flags[name] = append(p.flags[name], vals...) }
	addArg := func(name string, a arg) { p.vals[name] = append(p.vals[name], a) }
	ended := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal {
			return p, "an argument with an expansion"
		}
		v := a.value
		if !ended && a.glob && strings.HasPrefix(v, "-") {
			// A glob that matches nothing reaches the program as written,
			// a flag no check saw (--output=/x/*).
			return p, "a flag with a wildcard"
		}
		switch {
		case ended || v == "-" || !strings.HasPrefix(v, "-"):
			p.operands = append(p.operands, a)
			if firstOperandEnds {
				ended = true
			}
			continue
		case v == "--":
			ended = true
			continue
		}
		take := func(kind flagKind, name, attached string, hasAttached bool) string {
			switch kind {
			case flagBare:
				if hasAttached {
					return "flag " + name + " takes no value"
				}
				add(name)
			case flagOptional:
				add(name, attached)
			case flagValue, flagPath:
				val := attached
				// An attached ~ is judged as the home, its likelier reading.
				word := arg{value: val, literal: true, glob: a.glob, tilde: strings.HasPrefix(val, "~")}
				if !hasAttached {
					if i+1 >= len(args) {
						return "flag " + name + " lacks its value"
					}
					i++
					if !args[i].literal {
						return "an argument with an expansion"
					}
					if args[i].glob {
						return "a flag value with a wildcard"
					}
					word = args[i]
					if strings.HasPrefix(word.value, "-") {
						p.dashValue = true
					}
					val = word.value
				}
				if kind == flagPath {
					p.reads = append(p.reads, word)
				}
				add(name, val)
				addArg(name, word)
			case flagTwo, flagNamePath:
				if hasAttached || i+2 >= len(args) {
					return "flag " + name + " takes two values"
				}
				if !args[i+1].literal || !args[i+2].literal {
					return "an argument with an expansion"
				}
				if args[i+1].glob || args[i+2].glob {
					return "a flag value with a wildcard"
				}
				if strings.HasPrefix(args[i+1].value, "-") || strings.HasPrefix(args[i+2].value, "-") {
					p.dashValue = true
				}
				if kind == flagNamePath {
					p.reads = append(p.reads, args[i+2])
				}
				add(name, args[i+1].value, args[i+2].value)
				i += 2
			}
			return ""
		}
		if strings.HasPrefix(v, "--") {
			name, val, hasVal := strings.Cut(v, "=")
			kind, ok := fs[name]
			if !ok {
				return p, "unknown flag " + name
			}
			if why := take(kind, name, val, hasVal); why != "" {
				return p, why
			}
			continue
		}
		// Single-dash long flags (go env -json) are listed whole.
		if name, val, hasVal := strings.Cut(v, "="); len(name) > 2 {
			if kind, ok := fs[name]; ok {
				if why := take(kind, name, val, hasVal); why != "" {
					return p, why
				}
				continue
			}
		}
		if numeric && isDigits(v[1:]) {
			p.numeric = true
			continue
		}
		// Combined short flags: -la, -n5, -A3.
		for j := 1; j < len(v); j++ {
			name := "-" + v[j:j+1]
			kind, ok := fs[name]
			if !ok {
				if numeric && isDigits(v[j:]) {
					p.numeric = true
					break
				}
				return p, "unknown flag " + name
			}
			rest := v[j+1:]
			if kind == flagBare {
				add(name)
				continue
			}
			if kind == flagOptional {
				add(name, rest)
				break
			}
			if why := take(kind, name, rest, rest != ""); why != "" {
				return p, why
			}
			break
		}
	}
	return p, ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// singleFlags refuses combined short flags (-Io) for a command with a
// parser of its own, which may read them otherwise than getopt does: tree
// reads -Io x as -I x then -o. With digits, a value flag may carry its
// value attached (xxd -c16).
func singleFlags(args []arg, fs flagSet, digits bool) string {
	for _, a := range args {
		v := a.value
		if !a.literal || len(v) <= 2 || v[0] != '-' || v[1] == '-' || isDigits(v[1:]) {
			continue
		}
		if _, whole := fs[v]; whole {
			continue
		}
		if k := fs[v[:2]]; digits && (k == flagValue || k == flagOptional) && isDigits(v[2:]) {
			continue
		}
		return "combined flags " + v
	}
	return ""
}
