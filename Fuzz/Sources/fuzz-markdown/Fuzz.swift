// Markdown to a safe HTML page, to text, and to a thumbnail's layout (drawn at 64 px).
import Foundation
import FuzzDriver
import QuireMarkdown
@testable import QuirePreviews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ input: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start = input ?? UnsafeRawPointer(bitPattern: 1) else { return 0 }
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: min(count, 16_384)), as: UTF8.self)
  _ = try? MarkdownPreview.htmlPage(markdown: text, title: text, safety: .safe)
  _ = try? MarkdownPreview.text(markdown: text)
  // As the provider does: front matter split off (and drawn as metadata), the body laid out.
  let (frontMatter, body) = FrontMatter.split(text)
  if let document = try? CommonMark.parse(body) {
    _ = try? MarkdownThumbnailProvider.draw(document, frontMatter: frontMatter, longestSide: 64)
  }
  return 0
}

// SwiftPM links an executable's entry point as `<module>_main`: it hands over to libFuzzer.
@_cdecl("fuzz_markdown_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  runLibFuzzer(argc, argv) { fuzz($0, $1) }
}
