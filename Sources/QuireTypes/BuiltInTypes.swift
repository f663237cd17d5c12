/// Apple's core type declarations, with Apple's conformances and tags.
enum BuiltInTypes {
  private static func t(
    _ identifier: String, _ conformsTo: [String], _ description: String,
    extensions: [String] = [], mime: [String] = []
  ) -> TypeDeclaration {
    var tags: [UTTagClass: [String]] = [:]
    if !extensions.isEmpty { tags[.filenameExtension] = extensions }
    if !mime.isEmpty { tags[.mimeType] = mime }
    return TypeDeclaration(identifier: identifier, conformsTo: conformsTo, description: description, tags: tags)
  }

  static let declarations: [TypeDeclaration] = [
    t("public.item", [], "item"),
    t("public.content", [], "content"),
    t("public.data", ["public.item"], "data"),
    t("public.directory", ["public.item"], "directory"),
    t("public.folder", ["public.directory"], "folder"),
    t("com.apple.package", ["public.directory"], "package"),
    t("public.composite-content", ["public.content"], "composite content"),
    t("public.text", ["public.data", "public.content"], "text"),
    t("public.plain-text", ["public.text"], "plain text", extensions: ["txt", "text"], mime: ["text/plain"]),
    t("public.utf8-plain-text", ["public.plain-text"], "UTF-8 plain text"),
    t("public.source-code", ["public.plain-text"], "source code"),
    t("net.daringfireball.markdown", ["public.plain-text"], "Markdown text",
      extensions: ["md", "markdown"], mime: ["text/markdown"]),
    t("public.html", ["public.text"], "HTML text", extensions: ["html", "htm"], mime: ["text/html"]),
    t("public.json", ["public.text"], "JSON", extensions: ["json"], mime: ["application/json"]),
    t("public.image", ["public.data", "public.content"], "image"),
    t("public.png", ["public.image"], "PNG image", extensions: ["png"], mime: ["image/png"]),
    t("public.jpeg", ["public.image"], "JPEG image", extensions: ["jpeg", "jpg"], mime: ["image/jpeg"]),
    t("com.adobe.pdf", ["public.data", "public.composite-content"], "PDF document",
      extensions: ["pdf"], mime: ["application/pdf"]),
    t("public.url", ["public.data"], "URL"),
    t("public.file-url", ["public.url"], "file URL"),
  ]
}
