package schema

// StudyReportSchemaPath is the path of the study report's schema inside the schemas/ directory.
const StudyReportSchemaPath = "contractcheck/study-report.schema.json"

// ValidateStudyReport validates a decoded JSON study report (`contractcheck study --format json`,
// studyVersion 1). The schema is compiled on first use. A violation is a *ValidationError with
// an empty File.
func (v *Validator) ValidateStudyReport(doc any) error {
	s, err := v.study.get(v, StudyReportSchemaPath)
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return convert(err, "", 0, "", nil)
	}
	return nil
}
