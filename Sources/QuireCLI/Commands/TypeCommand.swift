import ArgumentParser
import Foundation
import QuireTypes
import SystemPackage

/// `quire type`: identify files, or look up the type of an extension or MIME type.
struct TypeCommand: AsyncParsableCommand, TakesNamesAsBytes, ChecksInputAfterParsing {
  static let configuration = CommandConfiguration(
    commandName: "type",
    _superCommandName: "quire", abstract: "Identify the type of files, or of an extension or MIME type.",
    discussion: """
      For each file: its type identifier, preferred MIME type, conformance chain and how it \
      was identified (file name, content or file system; the glob or magic rule; confidence; \
      disagreement between name and content). Exit codes: 0 all identified, 1 some file \
      could not be, 2 usage error.
      """)

  @Argument(help: "Files to identify.") var files: [String] = []
  @Option(name: .customLong("extension"), help: "Show the type of this filename extension instead.") var filenameExtension: String?
  @Option(name: .customLong("mime"), help: "Show the type of this MIME type instead.") var mimeType: String?
  @Flag(help: "Print JSON.") var json = false
  @Flag(name: .customLong("no-content"), help: "Judge by name and file system only; read no content.") var noContent = false
  @Flag(name: .customLong("no-follow"), help: "Report symbolic links as links instead of identifying their targets.") var noFollow = false

  func checkInputGiven() throws {
    if files.isEmpty && filenameExtension == nil && mimeType == nil {
      throw ValidationError("Give files to identify, or --extension EXT, or --mime TYPE.")
    }
  }

  func validate() throws {
    let modes = (files.isEmpty ? 0 : 1) + (filenameExtension == nil ? 0 : 1) + (mimeType == nil ? 0 : 1)
    if modes > 1 { throw ValidationError("Give files, --extension or --mime, not several.") }
    if filenameExtension?.isEmpty == true || mimeType?.isEmpty == true { throw ValidationError("The tag must not be empty.") }
  }

  func run() async throws {
    let registry = TypeRegistry.shared
    if let tag = filenameExtension ?? mimeType {
      let tagClass: UTTagClass = filenameExtension != nil ? .filenameExtension : .mimeType
      let cleaned = tagClass == .filenameExtension && tag.hasPrefix(".") ? String(tag.dropFirst()) : tag
      // The declared type of any kind (a package extension too), else the dynamic type
      // `UTType(filenameExtension:)` / `UTType(mimeType:)` give.
      guard let type = registry.type(forTag: cleaned, tagClass: tagClass) ?? registry.preferredType(forTag: cleaned, tagClass: tagClass, conformingTo: .data)
      else {
        throw ValidationError("'\(tag)' is not a tag.")
      }
      let others = registry.types(forTag: cleaned, tagClass: tagClass).filter { $0 != type }
      if json {
        var report = TypeReport(type, registry: registry)
        report.otherTypesWithTag = others.isEmpty ? nil : others.map(\.identifier)
        print(try Self.encode(report))
      } else {
        print(Self.describe(type, registry: registry))
        if !others.isEmpty { print("  also declared by: \(others.map(\.identifier).joined(separator: ", "))") }
      }
      return
    }
    try FilesRequest(files: files, json: json, noContent: noContent, noFollow: noFollow).run()
  }

  /// Files to identify, as asked on the command line: read by argument-parser, or, for the
  /// form run once per file in shell loops (`quire type FILE…` with `--json`, `--no-content`,
  /// `--no-follow`), without it (``init(directForm:)``).
  struct FilesRequest: DirectForm {
    var files: [String]
    var json = false
    var noContent = false
    var noFollow = false

    func run() throws {
      let registry = TypeRegistry.shared
      let options = IdentificationOptions(readsContent: !noContent, followsSymbolicLinks: !noFollow)
      var reports: [FileReport] = []
      var failures = 0
      for file in files {
        let path = QuireCommand.filePath(file)
        let shown = DisplayName.escaping(path)
        do {
          let identification = try registry.identifyFile(at: path, options: options)
          let report = FileReport(path: shown, identification: identification, registry: registry)
          if json { reports.append(report) } else { print(TypeCommand.describe(report)) }
        } catch {
          failures += 1
          if json { reports.append(FileReport(path: shown, error: ErrorReport.text(for: error))) }
          ErrorReport.say(error)
        }
      }
      if json { print(try TypeCommand.encode(reports)) }
      if failures > 0 { throw ExitCode(ExitStatus.failure) }
    }
  }

  // MARK: Output

  static func encode<T: Encodable>(_ value: T) throws -> String { try OutputJSON.encode(value) }

  static func describe(_ type: UTType, registry: TypeRegistry) -> String {
    var lines = ["\(type.identifier) (\(type.preferredMIMEType ?? "no MIME type"))"]
    if let text = type.localizedDescription { lines.append("  description: \(text)") }
    lines.append("  conforms to: \(chain(type))")
    let kind = type.isDynamic ? "dynamic (no declaration)" : registry.origin(ofTypeWithIdentifier: type.identifier).map { "declared (\($0))" } ?? "declared"
    lines.append("  kind: \(kind)")
    let extensions = type.tags[.filenameExtension] ?? []
    let mimes = type.tags[.mimeType] ?? []
    if !extensions.isEmpty { lines.append("  extensions: \(extensions.map { ".\($0)" }.joined(separator: " "))") }
    if !mimes.isEmpty { lines.append("  MIME types: \(mimes.joined(separator: " "))") }
    return lines.joined(separator: "\n")
  }

  static func chain(_ type: UTType) -> String {
    let chain = type.conformanceChain.map(\.identifier)
    return chain.isEmpty ? "nothing" : chain.joined(separator: ", ")
  }

  static func describe(_ report: FileReport) -> String {
    var lines = ["\(report.path): \(report.identifier ?? "?") (\(report.mimeType ?? "no MIME type"))"]
    lines.append("  conforms to: \((report.conformsTo ?? []).isEmpty ? "nothing" : (report.conformsTo ?? []).joined(separator: ", "))")
    lines.append("  identified by: \(report.source ?? "?"), confidence \(String(format: "%.2f", report.confidence ?? 0)), \(report.bytesRead ?? 0) bytes read")
    for evidence in report.evidence ?? [] { lines.append("  evidence: \(evidence.detail)") }
    if let disagreement = report.disagreement { lines.append("  disagreement: \(disagreement)") }
    return lines.joined(separator: "\n")
  }
}

/// One type, for `--json`.
struct TypeReport: Encodable {
  var identifier: String
  var preferredMIMEType: String?
  var preferredFilenameExtension: String?
  var description: String?
  var conformsTo: [String]
  var isDynamic: Bool
  var origin: String?
  var filenameExtensions: [String]
  var mimeTypes: [String]
  var otherTypesWithTag: [String]?

  init(_ type: UTType, registry: TypeRegistry) {
    identifier = type.identifier
    preferredMIMEType = type.preferredMIMEType
    preferredFilenameExtension = type.preferredFilenameExtension
    description = type.localizedDescription
    conformsTo = type.conformanceChain.map(\.identifier)
    isDynamic = type.isDynamic
    origin = registry.origin(ofTypeWithIdentifier: type.identifier)?.description
    filenameExtensions = type.tags[.filenameExtension] ?? []
    mimeTypes = type.tags[.mimeType] ?? []
  }
}

/// One file, for `--json` and the text output.
struct FileReport: Encodable {
  struct EvidenceReport: Encodable {
    var kind: String
    var detail: String
    var mimeType: String?
    var rule: String?
    var weight: Int?
    var priority: Int?
  }
  var path: String
  var identifier: String?
  var mimeType: String?
  var conformsTo: [String]?
  var source: String?
  var confidence: Double?
  var bytesRead: Int?
  var evidence: [EvidenceReport]?
  var disagreement: String?
  var error: String?

  init(path: String, error: String) {
    self.path = path
    self.error = error
  }

  init(path: String, identification: TypeIdentification, registry: TypeRegistry) {
    self.path = path
    identifier = identification.type.identifier
    mimeType = identification.mimeType
    conformsTo = identification.type.conformanceChain.map(\.identifier)
    source = identification.source.rawValue
    confidence = (identification.confidence * 100).rounded() / 100
    bytesRead = identification.bytesRead
    evidence = identification.evidence.map {
      EvidenceReport(kind: $0.kind.rawValue, detail: $0.detail, mimeType: $0.mimeType, rule: $0.rule, weight: $0.weight, priority: $0.priority)
    }
    disagreement = identification.disagreement?.description
  }
}

extension TypeCommand.FilesRequest {
  /// `type FILE…` with any of `--json`, `--no-content` and `--no-follow` (each at most once);
  /// nil for anything else (`--extension`, `--mime`, another option, `--`, a short option, a
  /// flag given twice, no file), which the parser then reads with its checks and messages.
  /// The result is what the parser would have made of the same line.
  init?(directForm arguments: [String]) {
    guard arguments.count >= 2, arguments[0] == "type" else { return nil }
    files = []
    for argument in arguments.dropFirst() {
      switch argument {
      case "--json" where !json: json = true
      case "--no-content" where !noContent: noContent = true
      case "--no-follow" where !noFollow: noFollow = true
      case _ where argument.hasPrefix("-"): return nil
      default: files.append(argument)
      }
    }
    guard !files.isEmpty else { return nil }
  }
}
