package schema

// CompareReportSchemaPath is the path of the compare report's schema inside the schemas/ directory.
const CompareReportSchemaPath = "contractcheck/compare-report.schema.json"

// ValidateCompareReport validates a decoded JSON compare report (`contractcheck compare --format
// json`, compareVersion 1). The schema is compiled on first use (the compiler keeps it). A
// violation is a *ValidationError with an empty File.
func (v *Validator) ValidateCompareReport(doc any) error {
	s, err := v.main.compile(CompareReportSchemaPath, "")
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return convert(err, "", 0, "", nil)
	}
	return nil
}
