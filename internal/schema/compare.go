package schema

// CompareReportSchemaPath is the path of the compare report's schema inside the schemas/ directory.
const CompareReportSchemaPath = "contractcheck/compare-report.schema.json"

// ValidateCompareReport validates a decoded JSON compare report (`contractcheck compare --format
// json`, compareVersion 4). The schema is compiled on first use. A
// violation is a *ValidationError with an empty File.
func (v *Validator) ValidateCompareReport(doc any) error {
	return v.compare.validate(v, CompareReportSchemaPath, "", doc)
}
