package collect

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestCollectHoldsOneEventAtATime: when collect has checked a batch's last event, it holds no
// more than a fraction of the batch decompressed, not the batch's decoded tree: the batch is read
// event by event (strictjson.ArrayReader), so the memory of an upload in flight is its
// compressed body and a read buffer (and, with --census, its readings).
func TestCollectHoldsOneEventAtATime(t *testing.T) {
	events := reportkit.DecisionEvents(t, directPaper)
	var batch []map[string]any
	for len(batch) < 6000 {
		batch = append(batch, events...)
	}
	arr := make([]any, len(batch))
	for i, e := range batch {
		arr[i] = e
	}
	raw, err := strictjson.Marshal(arr)
	if err != nil {
		t.Fatal(err)
	}
	body := reportkit.Gzip(t, raw)
	held := int64(-1)
	c, err := New(loaded(t, inputs.Options{}), Options{Dir: t.TempDir(), checked: func(i int) {
		if i == len(batch)-1 {
			held = testkit.LiveHeap()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	upload := func(body []byte) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, DefaultPath, bytes.NewReader(body))
		req.Header.Set("Content-Encoding", "gzip")
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("HTTP %d %s", rec.Code, rec.Body)
		}
	}
	upload(reportkit.GzipBatch(t, events)) // the instrument's caches warmed
	base := testkit.LiveHeap()
	upload(body)
	runtime.KeepAlive(batch)
	runtime.KeepAlive(raw)
	if held < 0 {
		t.Fatal("the last event was not checked")
	}
	if grew := held - base; grew > int64(len(raw))/4 {
		t.Fatalf("at the last event of a batch of %d events (%d bytes decompressed, %d gzip'd), collect held %d bytes more than before: the batch's tree, not one event", len(batch), len(raw), len(body), grew)
	}
	t.Logf("%d events, %d bytes decompressed: %d bytes held at the last", len(batch), len(raw), held-base)
}
