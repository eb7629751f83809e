// Package checkout finds the root of the repository's checkout from a
// test's working directory. The repository holds several Go modules (the
// core and its integrations, each with its own go.mod), so "the nearest
// go.mod" is not the root: the root is the directory whose go.mod declares
// the core module. Tests use it to reach testdata/ and scripts/.
package checkout
