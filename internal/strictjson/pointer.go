package strictjson

import "strings"

var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken spells an object key as an RFC 6901 reference token: "~" as "~0", "/" as "~1".
func EscapeToken(key string) string { return tokenEscaper.Replace(key) }

// UnescapeToken is the object key a reference token spells: EscapeToken undone ("~01" is "~1").
func UnescapeToken(token string) string { return tokenUnescaper.Replace(token) }
