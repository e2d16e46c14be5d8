package agent

import (
	"bytes"
	"encoding/json"

	"github.com/agentloop/agentloop/internal/jsonscan"
)

// toldTypes are the record types [narrator.Line] says something of, in some
// format: a record of another type says nothing.
var toldTypes = map[string]bool{
	"assistant": true, "message": true, "item.started": true, "item.completed": true, "tool_use": true,
	"text": true, "tool_call": true, "assistant.message": true, "tool.execution_start": true,
}

// untold reports whether b is a JSON object whose type (a string) is none of
// toldTypes and that decodes into a [record] without an error (else
// [narrator.Line] passes it on as it is), found without decoding it: a Claude
// stream with partial messages is mostly stream_event records, and decoding
// each of them whole with encoding/json cost more than everything else done
// with the output. Members the record reads as objects or a bool must be
// null, those it reads as strings strings or null; a key with an escape in
// it leaves the answer to the decoder. With rawUnused (no one is told a line
// passed on as it is), whether it would decode does not matter: a type none
// of toldTypes is enough.
func untold(b []byte, rawUnused bool) bool {
	var typ []byte
	known := true
	ok := jsonscan.Fields(b, func(k, v []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			known = false
			return false
		}
		null := string(v) == "null"
		_, isString := jsonscan.Unquote(v)
		if rawUnused {
			if bytes.EqualFold(k, []byte("type")) && isString {
				typ, _ = jsonscan.Unquote(v) // the last one wins, as in encoding/json
			}
			return true
		}
		for _, f := range recordStrings { // encoding/json matches keys in any case
			if bytes.EqualFold(k, []byte(f)) && !isString && !null {
				known = false
				return false
			}
		}
		for _, f := range recordObjects {
			if bytes.EqualFold(k, []byte(f)) && !null {
				known = false
				return false
			}
		}
		if bytes.EqualFold(k, []byte("type")) && isString {
			typ, _ = jsonscan.Unquote(v) // the last one wins, as in encoding/json
		}
		return true
	})
	return ok && known && !toldTypes[string(typ)] && (rawUnused || json.Valid(b))
}

// recordStrings and recordObjects are the members of a [record] read as
// strings, and as objects or a bool.
var (
	recordStrings = []string{"type", "subtype", "role", "tool_name"}
	recordObjects = []string{"message", "item", "part", "tool_call", "data", "delta"}
)
