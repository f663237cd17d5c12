import QuireSystem

/// The module's lanes of the one ``BlockingExecutor`` (see `Sources/QuireSystem/README.md`).
/// Work that waits for other work has a lane apart from it, so a full lane never waits for
/// itself: an access waiting for its locks and its presenters (``waits``) waits for the
/// socket round trips to other processes' presenters (``messages``) and for this process's
/// presenters to answer (``answers``).
enum Blocking {
  /// Waits for locks and for presenters to prepare (the asynchronous coordinate forms).
  static let waits = BlockingLane("quire.coordination.waits", limit: 64)
  /// Socket round trips to other processes' presenters.
  static let messages = BlockingLane("quire.coordination.messages", limit: 64)
  /// Waits for this process's presenters to answer a message.
  static let answers = BlockingLane("quire.coordination.answers", limit: 64)
  /// Requests from other processes to this process's presenters.
  static let requests = BlockingLane("quire.presenters.requests", limit: 8)
}
