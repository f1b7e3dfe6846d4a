package custom.t7

diagnostics contains {
