package permission

// SourceSuggested is the source of rules the engine suggests.
const SourceSuggested = "suggested"
