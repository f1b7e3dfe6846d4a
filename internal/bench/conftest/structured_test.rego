package main_test

import data.main

test_missing_structured_denied if {
	count(main.deny) == 1 with input as {"fixture": "C05", "lane": "x", "laneVersion": "1", "stage": "D1", "state": "captured", "carrier": {"content": []}}
		with data.structured as ["C05"]
}

test_kept_structured_allowed if {
	count(main.deny) == 0 with input as {"fixture": "C05", "lane": "x", "laneVersion": "1", "stage": "D1", "state": "captured", "carrier": {"structuredContent": {}}}
		with data.structured as ["C05"]
}

test_other_stage_ignored if {
	count(main.deny) == 0 with input as {"fixture": "C05", "lane": "x", "laneVersion": "1", "stage": "A2", "state": "captured", "carrier": {}}
		with data.structured as ["C05"]
}
