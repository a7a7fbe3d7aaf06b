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
