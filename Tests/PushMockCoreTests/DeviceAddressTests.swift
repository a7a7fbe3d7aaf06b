import Foundation
import Testing

@testable import PushMockCore

/// One index for every kind of device address, across projects: what a protocol module adds
/// (a Web Push endpoint) is found the way FCM and APNs tokens are.
@Suite("Device addresses: one index for every kind")
struct DeviceAddressTests {
    static let endpoint = DeviceAddress.Kind("test_endpoint", retires: true)

    @Test("a module's own kind of address finds its device from any project, and is retired when taken away")
    func moduleKind() throws {
        let h = try Harness()
        let id = try h.device("android")["id"] as! String
        let registry = h.project.devices
        let device = try #require(registry[id])
        let address = DeviceAddress(Self.endpoint, "https://push.example/abc")
        registry.add(address, to: device)
        #expect(h.gateway.directory.device(at: address) === device)
        #expect(registry.device(at: address) === device)
        #expect(device.addresses.contains(address))
        let other = try #require(h.gateway.directory.project("other-project"))
        #expect(other.devices.device(at: address) == nil, "another project's lookup does not see it")
        registry.remove(address, from: device, at: Harness.start + 5)
        #expect(h.gateway.directory.device(at: address) == nil)
        #expect(h.gateway.directory.retirement(of: address)?.time == Harness.start + 5)
        #expect(h.gateway.directory.retirement(of: address)?.device === device)
        #expect(!device.addresses.contains(address))
    }

    @Test("FCM tokens and FIDs are found by kind; a refreshed token no longer names the device and is not remembered")
    func fcmKinds() throws {
        let h = try Harness()
        let d = try h.device("android")
        let token = d["token"] as! String
        let fid = d["fid"] as! String
        let device = try #require(h.project.devices.withToken(token))
        #expect(h.gateway.directory.device(at: .installation(fid)) === device)
        #expect(h.call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(device.id):refreshToken").status == 200)
        #expect(h.project.devices.withToken(token) == nil && device.token != token)
        #expect(h.gateway.directory.retirement(of: .registrationToken(token)) == nil)
    }

    @Test(
        "a FID is read from the token that begins with it, or kept apart: a given token without it, no token yet, a refresh, a reinstall"
    )
    func fidInToken() throws {
        let h = try Harness()
        let base = "/emulator/v1/projects/demo-pushmock/devices/"
        let fid = "cAbCdEfGhIjKlMnOpQrStU"
        let given = "eZyXwVuTsRqPoNmLkJiHgF:APA91b" + String(repeating: "x", count: 134)
        let d = try h.device("android", extra: #","fid":"\#(fid)","token":"\#(given)""#)
        #expect(d["fid"] as? String == fid && d["token"] as? String == given)
        let device = try #require(h.project.devices.withFID(fid))
        #expect(device.fid == fid && device.token == given)
        // No token yet: the FID alone; then a token made for it, which begins with it.
        let quiet = try h.device("android", extra: #","auto_init_enabled":false"#)
        let quietFID = quiet["fid"] as! String
        let q = try #require(h.project.devices.withFID(quietFID))
        #expect(q.token == nil && q.fid == quietFID)
        #expect(h.call("POST", base + q.id + ":enableAutoInit").status == 200)
        #expect(q.fid == quietFID && q.token?.hasPrefix(quietFID + ":APA91b") == true)
        #expect(h.project.devices.withFID(quietFID) === q && h.project.devices.withToken(q.token!) === q)
        // A refresh keeps the FID; a reinstall makes a new one, and the old no longer names it.
        #expect(h.call("POST", base + q.id + ":refreshToken").status == 200)
        #expect(q.fid == quietFID && h.project.devices.withFID(quietFID) === q)
        #expect(h.call("POST", base + q.id + ":reinstall").status == 200)
        #expect(q.fid != quietFID && q.token?.hasPrefix(q.fid + ":") == true)
        #expect(h.project.devices.withFID(quietFID) == nil && h.project.devices.withFID(q.fid) === q)
        #expect(device.fid == fid, "the device with a given token keeps its own FID")
        #expect(h.project.devices.withToken(given) === device)
        // A token is found under the FID it begins with; given a new FID and keeping its token,
        // the device is still found by that token, and by the new FID only.
        let token = q.token!
        let oldFID = q.fid
        h.project.devices.reassign(q, token: token, fid: "fNewInstallationIdAbCd")
        #expect(h.project.devices.withToken(token) === q && q.fid == "fNewInstallationIdAbCd")
        #expect(h.project.devices.withFID(oldFID) == nil && h.project.devices.withFID("fNewInstallationIdAbCd") === q)
        // Then a token made for the new FID: the old one names nothing.
        h.project.devices.reassign(q, token: "fNewInstallationIdAbCd:APA91b" + String(repeating: "y", count: 134))
        #expect(h.project.devices.withToken(token) == nil && h.project.devices.withToken(q.token!) === q)
        #expect(h.project.devices.withToken(oldFID + ":nothing") == nil && h.project.devices.withToken("no-colon") == nil)
    }

    @Test("a registration whose token or FID another device holds is refused, whether or not the token begins with the FID")
    func takenTokenOrFID() throws {
        let h = try Harness()
        func register(fid: String, token: String) -> Int {
            h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices",
                body: #"{"platform":"android","app":"com.example.app","fid":"\#(fid)","token":"\#(token)"}"#
            ).status
        }
        func token(_ fid: String, _ fill: String) -> String { fid + ":APA91b" + String(repeating: fill, count: 134) }
        // A device whose given token does not begin with its FID (an entry of its own), and one whose does.
        let apart = "cAbCdEfGhIjKlMnOpQrStU"
        let other = "eZyXwVuTsRqPoNmLkJiHgF"
        #expect(register(fid: apart, token: token(other, "x")) == 201)
        let plain = "gPlainFidAbCdEfGhIjKlM"
        #expect(register(fid: plain, token: token(plain, "p")) == 201)
        #expect(register(fid: other, token: token(other, "x")) == 409, "the token, held apart")
        #expect(register(fid: apart, token: token(apart, "y")) == 409, "the FID of the device with a token apart")
        #expect(register(fid: plain, token: token(plain, "q")) == 409, "the FID, with a new token that begins with it")
        #expect(register(fid: "hNewFidAbCdEfGhIjKlMnO", token: token(plain, "p")) == 409, "the token, under another FID")
        #expect(register(fid: other, token: token(other, "z")) == 201, "the FID the held token begins with is free")
        #expect(h.project.devices.count == 3)
        // A send finds each: the token held apart begins with the FID of another device, which
        // does not hold it.
        func holder(_ token: String) -> String? { h.gateway.directory.device(at: .registrationToken(token))?.fid }
        #expect(holder(token(other, "x")) == apart)
        #expect(holder(token(other, "z")) == other)
        #expect(holder(token(plain, "p")) == plain)
        #expect(holder(token(plain, "q")) == nil)
    }

    @Test("an APNs token is one address in either case; a project started over forgets its devices' addresses")
    func apnsAndReset() throws {
        let h = try Harness()
        let d = try h.device("ios")
        let hex = d["apns_token"] as! String
        let address = try #require(DeviceAddress.apns(hex.uppercased()))
        #expect(h.gateway.directory.device(at: address)?.id == d["id"] as? String)
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-pushmock").status == 200)
        #expect(h.gateway.directory.device(at: address) == nil)
        #expect(h.gateway.directory.device(at: .registrationToken(d["token"] as! String)) == nil)
    }
}
