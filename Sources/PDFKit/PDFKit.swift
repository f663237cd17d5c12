// Apple's `PDFKit` framework by its own name: `PDFDocument`, `PDFPage`, `PDFSelection`,
// `PDFOutline`, `PDFDestination` and the rest of QuirePDF, so a ported file's `import PDFKit`
// and qualified names (`PDFKit.PDFDocument`) compile unchanged. The framework's name is free on
// Linux; the types are QuirePDF's (poppler-glib and libqpdf).
@_exported public import Foundation
@_exported public import QuireFormats
@_exported public import QuirePDF
