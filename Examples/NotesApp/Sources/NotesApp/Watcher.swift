import Foundation
import QuireCoordination

/// A file presenter, as Apple's "NSFilePresenter" documentation describes one: it hears when
/// others change the file it shows.
final class Watcher: NSObject, NSFilePresenter, @unchecked Sendable {
  // @unchecked: `changes` is only touched under `lock`.
  let presentedItemURL: URL?
  let presentedItemOperationQueue: OperationQueue? = OperationQueue()
  private let lock = NSLock()
  private var changes = 0

  init(url: URL) {
    presentedItemURL = url
  }

  var changeCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return changes
  }

  func presentedItemDidChange() {
    lock.lock()
    changes += 1
    lock.unlock()
  }
}
