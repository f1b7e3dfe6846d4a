package schema

// StudyReportSchemaPath is the path of the study report's schema inside the schemas/ directory.
const StudyReportSchemaPath = "contractcheck/study-report.schema.json"

// ValidateStudyReport validates a decoded JSON study report (`contractcheck study --format json`,
// studyVersion 1). The schema is compiled on first use. A violation is a *ValidationError with
// an empty File.
func (v *Validator) ValidateStudyReport(doc any) error {
	return v.study.validate(v, StudyReportSchemaPath, "", doc)
}
