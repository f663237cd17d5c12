import ArgumentParser
import Foundation
import Quire

/// `--backend wayland|x11|quire` of `quire copy` and `quire paste`: where the general and
/// primary pasteboards live (``PasteboardBackend``).
enum BackendOption: String, ExpressibleByArgument, CaseIterable {
  case wayland, x11, quire

  var backend: PasteboardBackend {
    switch self {
    case .wayland: .wayland
    case .x11: .x11
    case .quire: .quire
    }
  }

  /// The option's help.
  static var help: ArgumentHelp {
    ArgumentHelp(
      "Where the general and primary pasteboards live (default: $QUIRE_PASTEBOARD, else Wayland data-control, then X11, then Quire's own).",
      valueName: "backend")
  }
}

extension Pasteboard {
  /// The pasteboard `quire copy` and `quire paste` use: `backend` when given, else the
  /// environment's choice. When the desktop's first choice had to be passed over (a Wayland
  /// compositor without data-control), the one line saying so goes to standard error, unless
  /// `quiet` (the background server, whose starter already said it).
  static func forCommand(_ name: String, backend: BackendOption?, quiet: Bool = false) throws -> Pasteboard {
    let board = try Pasteboard(name: name, rootFolder: nil, backend: backend?.backend)
    if let note = board.fallbackNote, !quiet { FileHandle.standardError.write(Data("quire: \(note)\n".utf8)) }
    return board
  }
}
