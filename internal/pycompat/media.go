package pycompat

// Texts with which a chat formatter presents the media blocks of a tool
// result to a model that reads results as text (the reference's
// _format_tool_result_with_promotion). main is the media type's main part
// ("image"), id the data block's id.

// MediaAtURL: a URL source the model cannot be shown.
func MediaAtURL(main, url string) string {
	return "<system-reminder>A(n) " + main + " file is returned and can be accessed at the URL: " + url + ".</system-reminder>"
}

// MediaNotPresentable: inline data of a type the model does not accept.
// The reference writes such data to a temporary file and names its path;
// a library that must not write files says so instead.
func MediaNotPresentable(main, mediaType string) string {
	return "<system-reminder>A(n) " + main + " file (" + mediaType + ") is returned but cannot be presented to you.</system-reminder>"
}

// MediaPresented: the data follows in a user turn under id.
func MediaPresented(main, id string) string {
	return "<system-reminder>A(n) " + main + " file is returned and will be presented to you with the identifier [" + id + "].</system-reminder>"
}

// The user turn that presents promoted media: MediaListOpen, then for each
// MediaListItem followed by the data block, then MediaListClose.
const (
	MediaListOpen  = "<system-reminder>The multimodal data and their identifiers are listed as follows:"
	MediaListClose = "</system-reminder>"
)

// MediaListItem introduces one promoted data block.
func MediaListItem(id, main string) string { return "- " + id + " (" + main + " file): " }
