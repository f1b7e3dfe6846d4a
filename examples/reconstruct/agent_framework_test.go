package main

import (
	"encoding/json"
	"testing"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

func fixtureOf(s string) record.Fixture { return record.Fixture{ID: "T", Bytes: []byte(s)} }

func TestAgentFrameworkRules(t *testing.T) {
	cases := []struct {
		name    string
		fixture string
		wantA2  string
		wantH4  string
	}{
		{name: "texts joined into result, structured appended as ensure_ascii JSON text",
			fixture: `{"content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"text","text":"b"}],"structuredContent":{"é":1.0}}`,
			wantA2:  `{"type":"function_result","call_id":"call_fixture_tool_1","result":"a\nb\n{\"\\u00e9\": 1.0}","items":[{"type":"text","text":"a","additional_properties":{}},{"type":"text","text":"","additional_properties":{}},{"type":"text","text":"b","additional_properties":{}},{"type":"text","text":"{\"\\u00e9\": 1.0}","additional_properties":{}}],"additional_properties":{"fc_id":"fc_fixture_tool_1","status":"completed"}}`,
			wantH4:  `{"call_id":"call_fixture_tool_1","type":"function_call_output","output":"a\nb\n{\"\\u00e9\": 1.0}"}`},
		{name: "result _meta copied into items, resource link URL normalised",
			fixture: `{"content":[{"type":"resource_link","uri":"https://E.com","name":"n","mimeType":"application/pdf"}],"_meta":{"k":1}}`,
			wantA2:  `{"type":"function_result","call_id":"call_fixture_tool_1","result":"","items":[{"type":"uri","uri":"https://e.com/","media_type":"application/pdf","additional_properties":{"_meta":{"k":1}}}],"additional_properties":{"fc_id":"fc_fixture_tool_1","status":"completed"}}`,
			wantH4:  `{"call_id":"call_fixture_tool_1","type":"function_call_output","output":[{"type":"input_file","file_data":"https://e.com/"}]}`},
		{name: "isError raises; the model sees a fixed text",
			fixture: `{"content":[{"type":"text","text":"no"}],"isError":true}`,
			wantA2:  `{"type":"function_result","call_id":"call_fixture_tool_1","exception":"no","result":"Error: Function failed.","items":[{"type":"text","text":"Error: Function failed.","additional_properties":{}}],"additional_properties":{"fc_id":"fc_fixture_tool_1","status":"completed"}}`,
			wantH4:  `{"call_id":"call_fixture_tool_1","type":"function_call_output","output":"Error: Function failed."}`},
		{name: "JSON-RPC error: exception text is the tuple repr",
			fixture: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x"}}`,
			wantA2:  `{"type":"function_result","call_id":"call_fixture_tool_1","exception":"('Unknown tool: x', McpError('Unknown tool: x'))","result":"Error: Function failed.","items":[{"type":"text","text":"Error: Function failed.","additional_properties":{}}],"additional_properties":{"fc_id":"fc_fixture_tool_1","status":"completed"}}`,
			wantH4:  `{"call_id":"call_fixture_tool_1","type":"function_call_output","output":"Error: Function failed."}`},
		{name: "image re-encoded, audio becomes input_audio",
			fixture: `{"content":[{"type":"image","data":"AAE=","mimeType":"image/png"},{"type":"audio","data":"AAE=","mimeType":"audio/wav"}]}`,
			wantA2:  ``,
			wantH4:  `{"call_id":"call_fixture_tool_1","type":"function_call_output","output":[{"type":"input_image","image_url":"data:image/png;base64,AAE=","detail":"auto"},{"type":"input_audio","input_audio":{"data":"data:audio/wav;base64,AAE=","format":"wav"}}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stages := reconstructAgentFramework("default", fixtureOf(c.fixture), nil)
			if len(stages) != 4 || stages[0].State != "not_observable" {
				t.Fatalf("stages: %+v", stages)
			}
			if c.wantA2 != "" {
				if got := string(stages[1].Carrier.(json.RawMessage)); got != c.wantA2 {
					t.Errorf("A2 got  %s\nwant   %s", got, c.wantA2)
				}
			}
			if got := string(stages[3].Carrier.(json.RawMessage)); got != c.wantH4 {
				t.Errorf("H4 got  %s\nwant   %s", got, c.wantH4)
			}
		})
	}
}
