module github.com/contractcheck/contractcheck/examples/probe/go/openai-chat-agent

go 1.26.0

require (
	github.com/contractcheck/contractcheck/examples/probe/go/observe v0.0.0-00010101000000-000000000000
	github.com/contractcheck/contractcheck/examples/probe/go/probeenv v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/openai/openai-go/v3 v3.102.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace (
	github.com/contractcheck/contractcheck/examples/probe/go/observe => ../observe
	github.com/contractcheck/contractcheck/examples/probe/go/probeenv => ../probeenv
)
