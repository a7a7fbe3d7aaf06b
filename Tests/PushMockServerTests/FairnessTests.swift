import Foundation
import Testing

/// Work that takes longer than a turn of the loop is done in slices, so other connections
/// are answered while it runs (docs/hardening.md, "Stalls").
/// Left out of the sanitizer's run (`make test-asan`): what they check is the loop's
/// fairness, and their 100,000 devices would starve the tests beside them there.
@Suite(
    "Fairness: long work yields to other connections", .serialized, .serverTestLimit,
    .enabled(if: !ServerProcess.isSanitized))
struct FairnessTests {
    /// Sends `body` to `path` from another thread and asks `/healthz` on `c` until it is
    /// answered; returns that answer and how many `/healthz` answers came meanwhile.
    func answeredMeanwhile(
        _ port: Int, _ path: String, _ body: String, headers: [String: String] = [:], on c: HTTPConnection
    ) throws -> (status: Int, body: String, meanwhile: Int) {
        final class Box: @unchecked Sendable {
            var status = 0
            var body = ""
            let done = DispatchSemaphore(value: 0)
        }
        let box = Box()
        Thread {
            if let c = try? HTTPConnection(port: port, timeout: 120),
                let r = try? c.request("POST", path, body: body, headers: headers)
            {
                box.status = r.status
                box.body = r.text
            }
            box.done.signal()
        }.start()
        var meanwhile = 0
        while box.done.wait(timeout: .now()) == .timedOut {
            #expect(try c.request("GET", "/healthz").status == 200)
            meanwhile += 1
        }
        return (box.status, box.body, meanwhile)
    }

    @Test(
        "a devices:batchCreate of 100,000 runs in slices: another client's requests are answered meanwhile"
    )
    func batchCreateYields() throws {
        let server = try ServerProcess()
        let port = server.port
        let count = 100_000
        let c = try HTTPConnection(port: port)
        let box = try answeredMeanwhile(
            port, "/emulator/v1/projects/demo-pushmock/devices:batchCreate",
            #"{"platform":"android","app":"com.example.load","count":\#(count)}"#, on: c)
        #expect(box.status == 201 && box.body.contains(#""created":\#(count)"#), "\(box.body)")
        #expect(box.meanwhile > 10, "answered while the batch ran: \(box.meanwhile)")
        let info = try c.request("GET", "/emulator/v1/projects/demo-pushmock").json
        #expect(info["devices"] as? Int == count)
    }

    @Test(
        "a topic send to 100,000 devices fans out in slices: others are answered meanwhile, and the answer comes after the last device"
    )
    func fanOutYields() throws {
        let server = try ServerProcess(["--device-rate-limit", "0"])
        let port = server.port
        let count = 100_000
        let c = try HTTPConnection(port: port, timeout: 120)
        let made = try c.request(
            "POST", "/emulator/v1/projects/demo-pushmock/devices:batchCreate",
            body: #"{"platform":"android","app":"com.example.load","count":\#(count),"topics":["big"]}"#)
        #expect(made.status == 201, "\(made.text)")
        let box = try answeredMeanwhile(
            port, "/fcm/send", #"{"to":"/topics/big","data":{"k":"v"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key"], on: c)
        #expect(box.status == 200 && box.body.contains("message_id"), "\(box.body)")
        #expect(box.meanwhile > 10, "answered while the fan-out ran: \(box.meanwhile)")
        let id = box.body.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? ""
        let accepted = try c.request(
            "GET", "/emulator/v1/projects/demo-pushmock/events?message_id=\(id)&event=MESSAGE_ACCEPTED&count=true")
        #expect(accepted.json["count"] as? Int == count + 1, "\(accepted.text)")
    }
}
