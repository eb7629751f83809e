// Package realpath resolves a path as the kernel reaches it: each symlink
// where it stands (before a ".." after it), dangling ones included, the
// missing rest kept lexically. The permission checks and the built-in
// tools judge a path by where it leads, not by how it is spelled.
package realpath
