// Package builtin holds the reference's built-in tools — Bash, Read, Write,
// Edit, Glob and Grep — with their names, input schemas, descriptions and
// result texts, each judged by its own permission policy
// (permission.Policy), applied in the reference's evaluation order.
//
// Bash's policy is an analysis of the command line's whole syntax tree
// (mvdan.cc/sh), stricter than the reference's (core-spec §4.6) wherever
// the two differ: every statement is judged, whatever separates or
// encloses it. The read-only verdict is an allow-list of commands and of
// their flags (commands.go), so an unknown command, an unknown flag, an
// assignment prefix, an output redirection, a word known only when it
// runs or a secret path read makes a line not read-only. Constructs that
// cannot be analysed statically (command and process substitution, ${…},
// subshells, control flow, functions, test commands), dangerous patterns,
// sed outside the reference's allow-list, secret paths read or written by
// any command, writes to dangerous files and directories and the removal
// of root-level paths ask for a confirmation no allow rule can silence.
// Writes by any command are judged like Write's: in ACCEPT_EDITS and
// DONT_ASK a line of read-only and edit commands whose every target lies
// in a working directory is allowed. Deny and ask rules stop a line when
// they match any of its commands; allow rules grant it only when together
// they cover every command that is not read-only (permission.Composite).
// Suggested rules are never wider than the call. The line is parsed for
// the shell that runs it (bash, or POSIX sh where bash is missing:
// interp.go), since bash and dash split some lines differently. Where
// tree-sitter, the reference's parser, would build error nodes for input
// a shell rejects, the analysis asks instead.
//
// Read, Write and Edit share the reference's read-before-write cache in the
// agent state (tool_context.read_file_cache): Write refuses to overwrite an
// existing file, and Edit to edit one, that was not read or changed since
// it was read. Write and Edit auto-allow inside the working directories in
// ACCEPT_EDITS and DONT_ASK and ask for dangerous paths; rules on them are
// fnmatch globs on file_path.
//
// Bash's commands do not inherit this process's environment, where the
// provider keys are: they get HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG,
// LC_ALL, LC_CTYPE, TZ and TMPDIR where set, and the entries of
// Config.Env, nothing else (internal/childenv, shared with the stdio MCP
// servers of package mcp), and git's safe.bareRepository=explicit, so a
// directory written into a bare repository's shape is no repository.
//
// Config.Sandbox (zero: off) runs them in an operating-system sandbox,
// bubblewrap on Linux (see [Sandbox]): the filesystem read-only but the
// working directory in workspace-write (and nothing but a private /tmp in
// read-only), a PID namespace and /proc of its own, a minimal /dev, no
// network unless Sandbox.Network, the credential files hidden. A command
// the analysis lets through, or that the user approves, still cannot
// write outside the working directory or read another process's
// environment. Where bubblewrap is missing or cannot create its
// namespaces, sandboxed commands refuse to run ([CheckSandbox] says why
// and how to install it); they never run unconfined instead.
//
// Differences from the reference, all on purpose: Bash runs its commands
// with bash -c rather than /bin/sh -c, so what the analysis reads is what
// runs. It streams its output
// as it comes (stdout and stderr interleaved) and reports a failure or a
// timeout after it, instead of one result at the end; it runs in its own
// process group, killed as a whole on timeout or interruption. Read
// streams files larger than the cache budget and does not cache them (so
// Write and Edit refuse them as unread). Edit refuses binary files, whose
// cached text is lossy. The unified diff Write and Edit put in their result
// metadata (difflib's, for the web UI) is left empty past 1 MB. Grep runs
// in-process with Go's regexp syntax instead of ripgrep, without
// .gitignore handling.
//
// Read, Glob and Grep do only what they are asked, in bounded time and
// memory, whatever the model asks (issue 18); these are differences too:
//
//   - Read reads regular files only: a device, FIFO or socket, or a link
//     to one, is an error result, returned without blocking (a FIFO
//     swapped in after the check is refused by the open file's own
//     check). The cache takes a file only when the bytes read fit its
//     budget, whatever stat reports (0 for /proc files). Its text stops at
//     MaxReadOutputBytes (4 MB; the default window always fits) with the
//     offset to read on from.
//   - Glob reads each directory once and lists each file once however many
//     "**" its pattern has. It stops at Config.SearchTimeout (20 s) or
//     Config.GlobMaxMatches (5,000 files); Grep at the same time budget,
//     Config.GrepMaxFiles (50,000 files read), Config.GrepMaxBytes (512 MB
//     read) or GrepMaxResults (10,000 result lines). Either ends its
//     result with a line such as "(search stopped after 20s; results are
//     incomplete)".
//     Neither follows a symlinked directory, nor enters /proc, /dev or
//     /sys from outside them.
//   - Grep refuses a regexp of more than 10,000 instructions, and matches
//     a large one on less of each line (1 MB at most, 64 Mi divided by its
//     instruction count, 4 KB at least), since one match cannot be
//     interrupted and costs up to bytes × instructions: a match at the
//     end of a long line can go unfound. A brace glob expands to 256
//     alternatives at most; a multiline search holds the text it read, not
//     a structure per line.
//   - All three stop with an error result when their context ends.
//   - Reading a secret path ([Config.SecretPath]: process files, devices,
//     credential files, .env files, Config.SecretPaths) is not read-only.
//     Read of one, and Glob or Grep whose search path is one, ask with a
//     confirmation no allow rule silences: asked in default and
//     accept_edits, denied in explore and dont_ask, run in bypass. A
//     recursive Grep skips secret files silently, unless its search path
//     is itself a secret path (and so was confirmed).
package builtin
