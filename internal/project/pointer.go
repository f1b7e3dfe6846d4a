package project

import "github.com/contractcheck/contractcheck/internal/strictjson"

// pointer is a parsed RFC 6901 JSON pointer (strictjson.Pointer): a binding's paths are parsed
// once, when it is compiled.
type pointer = strictjson.Pointer

// parsePointer parses an RFC 6901 pointer; "" is the whole value.
func parsePointer(s string) (pointer, error) { return strictjson.ParsePointer(s) }
