import Foundation

/// Where the module runs work that blocks (socket round trips to presenters, waits for their
/// answers). A queue made with a label gets its own threads when its work blocks, unlike
/// `DispatchQueue.global()`, whose threads are as many as the cores and would starve.
enum Blocking {
  static let queue = DispatchQueue(label: "quire.coordination.blocking", attributes: .concurrent)
}
