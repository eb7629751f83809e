// Package wiretest holds the test plumbing the provider adapters share:
// serving a recorded body (or a scripted failure) from an httptest server
// while capturing what the adapter sent, collecting a stream's chunks, and
// comparing JSON documents after normalization. It is imported by tests
// only.
package wiretest
