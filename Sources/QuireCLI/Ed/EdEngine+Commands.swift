import Foundation
import QuireSystem
import QuireTypes

/// ed's commands on lines, one function each (``EdEngine/run(_:input:)`` dispatches to them).
extension EdEngine {
  /// `a`: the lines typed after the addressed line.
  func add(after addresses: Addresses, _ flags: PrintFlags, input: () -> String?) throws(EdError) {
    let at = addresses.second
    let text = try readText(input).map { PathText.bytes($0) }
    try edit("insert") { () throws(EdError) in
      try replace(at..<at, with: text)
      document.currentLine = text.isEmpty ? addresses.second : at + text.count
    }
    try printCurrent(flags)
  }

  /// `i`: the lines typed before the addressed line.
  func add(before addresses: Addresses, _ flags: PrintFlags, input: () -> String?) throws(EdError) {
    let at = max(addresses.second - 1, 0)
    let text = try readText(input).map { PathText.bytes($0) }
    try edit("insert") { () throws(EdError) in
      try replace(at..<at, with: text)
      document.currentLine = text.isEmpty ? min(max(addresses.second, at), lastLine) : at + text.count
    }
    try printCurrent(flags)
  }

  /// `c`: the addressed lines replaced by the lines typed.
  func change(_ addresses: Addresses, _ flags: PrintFlags, input: () -> String?) throws(EdError) {
    try requireRange(addresses)
    let text = try readText(input).map { PathText.bytes($0) }
    cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
    try edit("change") { () throws(EdError) in
      try replace((addresses.first - 1)..<addresses.second, with: text)
      document.currentLine = text.isEmpty ? min(addresses.first, lastLine) : addresses.first - 1 + text.count
    }
    try printCurrent(flags)
  }

  /// `d`.
  func delete(_ addresses: Addresses, _ flags: PrintFlags) throws(EdError) {
    try requireRange(addresses)
    cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
    try edit("delete") { () throws(EdError) in
      try replace((addresses.first - 1)..<addresses.second, with: [])
      document.currentLine = min(addresses.first, lastLine)
    }
    try printCurrent(flags)
  }

  /// `j`: the addressed lines (the current and the next without addresses) as one.
  func join(_ addresses: Addresses, _ flags: PrintFlags) throws(EdError) {
    var addresses = addresses
    if addresses.count == 0 {
      addresses.first = document.currentLine
      addresses.second = document.currentLine + 1
    }
    try requireRange(addresses)
    if addresses.first < addresses.second {
      cutBuffer = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
      let joined = Array(cutBuffer.joined())
      try edit("join") { () throws(EdError) in
        try replace((addresses.first - 1)..<addresses.second, with: [joined])
        document.currentLine = addresses.first
      }
    } else {
      markUnchanged()
    }
    try printCurrent(flags)
  }

  /// `kx`.
  func setMark(_ letter: UInt8, _ addresses: Addresses) throws(EdError) {
    try requireLine(addresses.second)
    document.marks[letter] = addresses.second
  }

  /// `m`.
  func move(_ addresses: Addresses, to destination: [EdAddress], _ flags: PrintFlags) throws(EdError) {
    try requireRange(addresses)
    try moveLines(addresses, after: self.destination(destination))
    try printCurrent(flags)
  }

  /// `t`.
  func copy(_ addresses: Addresses, to destination: [EdAddress], _ flags: PrintFlags) throws(EdError) {
    try requireRange(addresses)
    let target = try self.destination(destination)
    let lines = buffer.lineBytes(in: (addresses.first - 1)..<addresses.second)
    try edit("copy") { () throws(EdError) in
      try replace(target..<target, with: lines)
      document.currentLine = target + lines.count
    }
    try printCurrent(flags)
  }

  /// `y` filled the cut buffer; `x` puts it after the addressed line.
  func put(_ addresses: Addresses, _ flags: PrintFlags) throws(EdError) {
    try checkBounds(addresses.second)
    // As ed: the undo record is cleared before the put, which may then fail.
    markUnchanged()
    guard !cutBuffer.isEmpty else { throw EdError("nothing to put: y (or d, c, j) fills the cut buffer first", ed: "Nothing to put") }
    let lines = cutBuffer
    try edit("put") { () throws(EdError) in
      try replace(addresses.second..<addresses.second, with: lines)
      document.currentLine = addresses.second + lines.count
    }
    try printCurrent(flags)
  }

  /// `h`, `H`.
  func help(_ addresses: Addresses, togglesVerbose: Bool) throws(EdError) {
    try requireNoAddress(addresses)
    if togglesVerbose { isVerbose.toggle() }
    if !togglesVerbose || isVerbose, let lastError { output?.print(lastError) }
  }

  /// `u`: inside `g`, undoes what the `g` changed so far and ends it (after this line's
  /// commands), as ed does.
  func undo(_ addresses: Addresses, _ flags: PrintFlags) throws(EdError) {
    try requireNoAddress(addresses)
    if globalLines != nil {
      guard globalHasEdited else { throw EdError("nothing to undo yet in this g command", ed: "Nothing to undo") }
      undoesGlobal = true
      globalLines = []
      globalCursor = 0
      return
    }
    try toggleUndo()
    try printCurrent(flags)
  }

  /// `q`, `Q`.
  func quit(_ addresses: Addresses, unconditionally: Bool) throws(EdError) -> Outcome {
    try requireNoAddress(addresses)
    if !unconditionally {
      let unsaved = (document.isEdited || globalHasEdited ? [document.displayName] : []) + (output?.otherUnsavedDocuments ?? [])
      try confirmQuit(unsaved: unsaved, advice: "'q' again quits without saving, 'w' saves")
    }
    return .quit
  }

  /// `f NAME`: sets the file name; `f` prints it.
  func setFileName(_ addresses: Addresses, _ target: EdCommand.FileTarget?) throws(EdError) {
    try requireNoAddress(addresses)
    if let target {
      guard case .file(let name) = target else { throw EdError("f names a file, not a shell command", ed: "Invalid redirection") }
      try checkFileNameAllowed(name)
      if document.pdf != nil {
        throw EdError("'\(document.displayName)' is a PDF: save it under a new name with 'save as PATH'")
      }
      if document.textBundle != nil, !EdDocument.isTextBundle(URL(fileURLWithPath: name)) {
        throw EdError("'\(document.displayName)' is a TextBundle: its name ends in .textbundle or .textpack")
      }
      document.fileURL = URL(fileURLWithPath: name)
    }
    guard let url = document.fileURL else { throw EdError("no current file name; give one: f FILE") }
    // GNU ed prints the name's bytes; quire's own mode shows it escaped, as its messages do.
    output?.print(edOptions == nil ? DisplayName.escaping(url.relativePath) : url.relativePath)
  }

  /// The file a command names (checked under `-r`), or the current file name.
  func fileURL(_ name: String?) throws(EdError) -> URL {
    if let name {
      try checkFileNameAllowed(name)
      return URL(fileURLWithPath: name)
    }
    guard let url = document.fileURL else { throw EdError("no current file name; give one, e.g. w notes.md") }
    return url
  }
}
