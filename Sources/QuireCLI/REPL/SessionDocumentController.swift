import Foundation
import Quire

/// The REPL's ``DocumentController``: the one way the session opens and makes documents.
///
/// The controller gives every document its registry, file access (the session's coordinator,
/// remade for the document's own presenter) and autosave policy; this subclass adds what is the
/// session's own: its version store, its recovery store, its undo history store, and the
/// desktop's recent documents in place of the controller's list.
@MainActor
final class SessionDocumentController: DocumentController {
  private let versions: VersionStore?
  private let autosave: AutosaveSettings?
  private let undoHistory: UndoHistoryStore?
  private let recents: RecentDocuments?

  init(configuration: REPLSession.Configuration) {
    versions = configuration.versionStore
    autosave = configuration.autosave
    undoHistory = configuration.undoHistory
    recents = configuration.recents
    super.init(templatesFolder: configuration.templatesFolder)
    registerPDFDocuments()
    if let coordinator = configuration.coordinator { fileAccess = coordinator } else { fileAccess = UncoordinatedFileAccess() }
    autosavePolicy = configuration.autosave?.policy
  }

  override func configure(_ document: Document, options: DocumentOptions) {
    super.configure(document, options: options)
    document.versionStore = versions
    document.recoveryStore = options.autosaves ? autosave?.store : nil
    document.autosavePolicy = options.autosaves ? autosave?.policy : nil
    if let undoHistory {
      document.undoHistoryStore = undoHistory
      document.persistsUndoHistory = true
    }
    // A browser's move or another program's coordinated read takes the text as shown here.
    document.savesWhenOtherProcessesAsk = true
  }

  /// Notes `url` in the desktop's recent documents (`recently-used.xbel`), not the
  /// controller's own list. A failure to note one is not the user's problem now.
  override func noteNewRecentDocumentURL(_ url: URL) {
    try? recents?.add(url)
  }
}

/// Where and when REPL documents autosave their unsaved edits: the document layer's recovery
/// files (``RecoveryStore``) and autosave timing.
struct AutosaveSettings {
  var store: RecoveryStore
  var policy: Document.AutosavePolicy
}
