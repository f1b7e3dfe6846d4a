"""Report a carrier from inside an agent run under `contractcheck probe` (stdlib only; copy it freely).

    from observe import observe
    observe("A2", {"output": result}, call_id="call_1")

POSTs {"stage", "carrier", "callId"} to CONTRACTCHECK_OBSERVE_URL; does nothing outside probe. A
bytes carrier is sent as the raw JSON it holds (numbers spelt as they were); anything else through
json.dumps. Raises RuntimeError with probe's message when the report is refused.
"""

import json
import os
import urllib.error
import urllib.request


def observe(stage, carrier, call_id=None):
    url = os.environ.get("CONTRACTCHECK_OBSERVE_URL")
    if not url:
        return
    raw = carrier.decode("utf-8") if isinstance(carrier, bytes) else json.dumps(carrier)
    body = '{"stage":%s,"carrier":%s%s}' % (json.dumps(stage), raw, ',"callId":%s' % json.dumps(call_id) if call_id else "")
    req = urllib.request.Request(url, data=body.encode("utf-8"), headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=10).close()
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"observe {stage}: {e.code} {e.read().decode('utf-8', 'replace').strip()}") from None
