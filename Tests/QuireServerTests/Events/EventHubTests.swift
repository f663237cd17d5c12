import Foundation
import Testing

@testable import QuireServer

@Suite("Event hub")
struct EventHubTests {
  @Test func everySubscriberGetsEveryEventAndLateOnesTheStickyState() async throws {
    let hub = EventHub()
    let early = hub.subscribe()
    hub.publish(ServerEvent(name: "progress", value: ["done": 1]), stickyKey: "index")
    hub.publish(ServerEvent(name: "change", value: ["kind": "added"]))
    hub.publish(ServerEvent(name: "progress", value: ["done": 2]), stickyKey: "index")
    let late = hub.subscribe()
    hub.finish()
    var earlyEvents: [String] = []
    for await event in early { earlyEvents.append(event.json) }
    var lateEvents: [String] = []
    for await event in late { lateEvents.append(event.json) }
    #expect(earlyEvents == [#"{"done":1}"#, #"{"kind":"added"}"#, #"{"done":2}"#])
    #expect(lateEvents == [#"{"done":2}"#], "a late page hears only where the sticky task stands")
    #expect(hub.subscriberCount == 0)
  }

  @Test func theWireFormatIsOneEventWithOneDataLine() {
    let event = ServerEvent(name: "document", value: ["text": "two\nlines </script>"])
    #expect(event.wireFormat == "event: document\ndata: {\"text\":\"two\\nlines </script>\"}\n\n")
    #expect(event.wireFormat.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
  }
}
