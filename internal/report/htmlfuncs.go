package report

import (
	"html/template"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// HTMLFuncs are the template functions of contractcheck's pages (check's here, compare's in
// internal/compare): every string of the data is written through escape.HTML, not through
// html/template's own escaper. The two agree on the markup characters but html/template also
// writes '+' as &#43; and NUL as U+FFFD, and keeps line breaks, which escape.HTML writes as &#10;
// and &#13; so that no line of a page printed to a CI log starts a runner's command. Each function
// returns its result typed as what html/template writes unchanged where the function is used:
//
//   - text s is s as the text of an element (template.HTML). It is for element content only:
//     html/template normalizes typed HTML placed in an attribute value or in <title> (RCDATA),
//     writing '+' and NUL again in its own way.
//   - attr name value is a whole attribute, name="value" with value escaped (template.HTMLAttr),
//     where an attribute may start inside a tag: a value of the data, or one that holds data
//     (class="c o-<outcome>", href="#task-<task>"), is never placed inside a quoted value of the
//     template, where html/template would escape it again, and an href's as a URL. The name is
//     the template's own, never data.
//   - element name s is a whole element holding the text s, <name>s</name> (template.HTML), for
//     <title>, whose content html/template treats as RCDATA.
func HTMLFuncs() template.FuncMap {
	return template.FuncMap{
		"text":    htmlText,
		"attr":    htmlAttr,
		"element": htmlElement,
	}
}

// htmlText is s escaped as HTML text (HTMLFuncs' text).
func htmlText(s string) template.HTML { return template.HTML(escape.HTML(s)) }

// htmlAttr is the attribute name="value" (HTMLFuncs' attr).
func htmlAttr(name, value string) template.HTMLAttr {
	return template.HTMLAttr(name + `="` + escape.HTML(value) + `"`)
}

// htmlElement is the element <name>s</name> (HTMLFuncs' element).
func htmlElement(name, s string) template.HTML {
	return template.HTML("<" + name + ">" + escape.HTML(s) + "</" + name + ">")
}
