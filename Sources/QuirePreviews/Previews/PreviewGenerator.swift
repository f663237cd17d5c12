public import Foundation
import QuireFormats
public import QuireTypes
public import SystemPackage

/// Previews of whole documents (the QLPreviewingController analogue): a complete HTML page or
/// plain text.
///
/// Markdown becomes safe HTML through libcmark (see ``MarkdownPreview``) or its text; PDF
/// becomes its metadata, outline, text per page and, in HTML, page images; plain text is shown
/// as it is.
public struct PreviewGenerator: Sendable {
  /// The output forms.
  public enum Format: String, Sendable, CaseIterable {
    case html, text
  }

  public let types: TypeRegistry
  /// Whether Markdown keeps raw HTML and every link (`--unsafe`).
  public var safety: MarkdownPreview.Safety
  /// How many PDF pages get an image in HTML previews (the text of every page is included).
  public var maximumPageImages: Int
  /// The width of PDF page images in pixels.
  public var pageImageWidth: Int

  public init(types: TypeRegistry = .shared, safety: MarkdownPreview.Safety = .safe, maximumPageImages: Int = 20, pageImageWidth: Int = 600) {
    self.types = types
    self.safety = safety
    self.maximumPageImages = maximumPageImages
    self.pageImageWidth = pageImageWidth
  }

  /// The preview of the file at `url` in `format`.
  /// - Throws: ``QuireError`` naming the file: missing, unreadable, unsupported type, or a bad PDF.
  public func preview(of url: URL, format: Format) throws -> String {
    try preview(FilePath(url.path), url: url, format: format)
  }

  /// The preview of the file at `path` in `format`; the name may be any bytes (one that is
  /// not UTF-8 is read by its bytes, and shown escaped, `\xFF`, in the page's title).
  /// - Throws: ``QuireError`` naming the file, as ``preview(of:format:)-(URL,_)`` does.
  public func preview(of path: FilePath, format: Format) throws -> String {
    guard path.withPlatformString({ String(validatingCString: $0) }) == nil else {
      return try preview(of: URL(fileURLWithPath: path.string), format: format)
    }
    return try preview(path, url: nil, format: format)
  }

  /// The preview of the file named `url` whose bytes are read from `source` only: the server
  /// passes the path of the descriptor it opened (`/proc/self/fd/N`), so what is previewed is
  /// the file it checked, whatever is at `url`'s name by now. The type comes from `url`'s name
  /// and `source`'s first bytes.
  package func preview(of url: URL, readingFrom source: URL, format: Format) throws -> String {
    let type = try ThumbnailGenerator.contentType(of: FilePath(url.path), readingFrom: source, registry: types)
    return try preview(FilePath(url.path), url: url, source: source, type: type, format: format)
  }

  /// The preview of the file at `path` in `format`, handed to `write` in pieces as it is made
  /// rather than returned: a Markdown page's HTML goes from cmark-gfm's buffer to `write`
  /// without a copy (see ``MarkdownPreview/writeHTMLPage(markdown:title:safety:to:)``). The
  /// bytes are those ``preview(of:format:)-(FilePath,_)`` returns.
  /// - Throws: ``QuireError`` naming the file, as ``preview(of:format:)-(URL,_)`` does; what `write` throws.
  public func writePreview(of path: FilePath, format: Format, to write: (UnsafeRawBufferPointer) throws -> Void) throws {
    // A name that is UTF-8 has a URL (errors carry it); one that is not is read by its bytes.
    let url = path.withPlatformString({ String(validatingCString: $0) }) != nil ? URL(fileURLWithPath: path.string) : nil
    let type = try url.map { try ThumbnailGenerator.contentType(of: $0, registry: types) } ?? ThumbnailGenerator.contentType(of: path, registry: types)
    try render(url.map { FilePath($0.path) } ?? path, url: url, source: url, type: type, format: format, to: write)
  }

  /// The preview of `path`; `url` is its URL when its name has one (errors carry it).
  private func preview(_ path: FilePath, url: URL?, format: Format) throws -> String {
    let type = try url.map { try ThumbnailGenerator.contentType(of: $0, registry: types) } ?? ThumbnailGenerator.contentType(of: path, registry: types)
    return try preview(path, url: url, source: url, type: type, format: format)
  }

  /// The preview of `path` of `type`, read from `source` (its own URL, or a pinned one).
  private func preview(_ path: FilePath, url: URL?, source: URL?, type: UTType, format: Format) throws -> String {
    var bytes: [UInt8] = []
    try render(path, url: url, source: source, type: type, format: format) { bytes.append(contentsOf: $0) }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Makes the preview of `path` of `type`, read from `source`, and hands it to `write`.
  private func render(
    _ path: FilePath, url: URL?, source: URL?, type: UTType, format: Format, to write: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    func written(_ text: String) throws {
      var text = text
      try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
    let title = url?.lastPathComponent ?? path.lastComponent.map { DisplayName.escaping(FilePath(root: nil, [$0])) } ?? ""
    if type.conforms(to: .pdf) {
      // By the path's bytes when the name is not UTF-8 (no URL holds it).
      let pdf = try source.map { try PDFFile(contentsOf: $0) } ?? PDFFile(filePath: path)
      return try written(try pdfPreview(pdf, title: title, format: format))
    }
    if type.conforms(to: .markdown) || type.conforms(to: .plainText) || type.conforms(to: .text) {
      let text = try source.map { try Self.readText($0) } ?? InputFile.readText(path, for: "preview", limit: Self.textLimit)
      if type.conforms(to: .markdown) {
        switch format {
        case .html: return try MarkdownPreview.writeHTMLPage(markdown: text, title: title, safety: safety, to: write)
        case .text: return try written(try MarkdownPreview.text(markdown: text))
        }
      }
      switch format {
      case .html:
        return try written(MarkdownPreview.page(title: title, body: "<pre class=\"plain\">\(MarkdownPreview.escapeHTML(text))</pre>\n", safety: .safe))
      case .text: return try written(text)
      }
    }
    throw QuireError(
      .unsupportedType, "Cannot preview \(QuireError.name(path)) (type \(type.identifier)): Quire previews Markdown, plain text and PDF.", url: url)
  }

  /// The most a text preview reads.
  static let textLimit = 256 << 20

  /// Reads a whole text file (up to `limit` bytes); binary or non-UTF-8 files are refused,
  /// naming the file, as the REPL and `copy` refuse them.
  static func readText(_ url: URL, limit: Int = textLimit) throws -> String {
    try InputFile.readText(url, for: "preview", limit: limit)
  }

  /// The preview of `pdf`, named `title` where it has no title of its own.
  func pdfPreview(_ pdf: PDFFile, title: String, format: Format) throws -> String {
    let metadata = pdf.metadata
    let outline = pdf.outline
    let formatter = ISO8601DateFormatter()
    var fields: [(String, String)] = []
    func add(_ name: String, _ value: String?) { if let value, !value.isEmpty { fields.append((name, value)) } }
    add("Title", metadata.title)
    add("Author", metadata.author)
    add("Subject", metadata.subject)
    add("Keywords", metadata.keywords)
    add("Creator", metadata.creator)
    add("Producer", metadata.producer)
    add("Created", metadata.creationDate.map { formatter.string(from: $0) })
    add("Modified", metadata.modificationDate.map { formatter.string(from: $0) })
    add("Version", metadata.version)
    add("Pages", String(metadata.pageCount))

    switch format {
    case .text:
      var out = fields.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
      if !outline.isEmpty {
        out += "\nOutline:\n"
        func walk(_ items: [PDFOutlineItem], depth: Int) {
          for item in items {
            out += String(repeating: "  ", count: depth + 1) + item.label + (item.pageIndex.map { " (page \($0 + 1))" } ?? "") + "\n"
            walk(item.children, depth: depth + 1)
          }
        }
        walk(outline, depth: 0)
      }
      for page in 0..<metadata.pageCount {
        out += "\n--- Page \(page + 1) ---\n"
        out += try pdf.text(ofPage: page)
        out += "\n"
      }
      return out
    case .html:
      let e = MarkdownPreview.escapeHTML
      var body = "<h1>\(e(metadata.title ?? title))</h1>\n<table class=\"metadata\">\n"
      for (name, value) in fields { body += "<tr><th>\(e(name))</th><td>\(e(value))</td></tr>\n" }
      body += "</table>\n"
      if !outline.isEmpty {
        body += "<nav><h2>Outline</h2>\n"
        func walk(_ items: [PDFOutlineItem]) {
          body += "<ul>\n"
          for item in items {
            let title = e(item.label)
            body += "<li>" + (item.pageIndex.map { "<a href=\"#page-\($0 + 1)\">\(title)</a>" } ?? title)
            if !item.children.isEmpty { walk(item.children) }
            body += "</li>\n"
          }
          body += "</ul>\n"
        }
        walk(outline)
        body += "</nav>\n"
      }
      for page in 0..<metadata.pageCount {
        body += "<section class=\"page\" id=\"page-\(page + 1)\">\n<h2>Page \(page + 1)</h2>\n"
        if page < maximumPageImages {
          let size = try pdf.pageSize(at: page)
          let height = max(1, Int((size.height * Double(pageImageWidth) / max(size.width, 1)).rounded()))
          if let png = try? pdf.render(page: page, width: pageImageWidth, height: min(height, 8 * pageImageWidth)).pngData(text: []) {
            body += "<img alt=\"Page \(page + 1)\" width=\"\(pageImageWidth)\" src=\"data:image/png;base64,\(png.base64EncodedString())\">\n"
          }
        }
        body += "<pre class=\"plain\">\(e(try pdf.text(ofPage: page)))</pre>\n</section>\n"
      }
      return MarkdownPreview.page(title: title, body: body, safety: .safe)
    }
  }
}
