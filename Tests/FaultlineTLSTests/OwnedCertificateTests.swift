import COpenSSL
import Synchronization
import Testing

@testable import FaultlineTLS

/// How many marked OpenSSL objects have been freed. Only ``OwnedCertificateTests`` marks any, so
/// other suites' certificates, freed meanwhile on other threads, do not count.
private let markedFrees = Atomic<Int>(0)

/// OpenSSL calls an ex_data index's free callback when the object holding it is finally freed,
/// with the value stored there: a non-nil value is our mark.
private let certificateMarkIndex = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_X509, 0, nil, nil, nil) {
    _, mark, _, _, _, _ in if mark != nil { markedFrees.add(1, ordering: .relaxed) }
}
private let keyMarkIndex = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_EVP_PKEY, 0, nil, nil, nil) {
    _, mark, _, _, _, _ in if mark != nil { markedFrees.add(1, ordering: .relaxed) }
}

@Suite("Releasing a certificate's OpenSSL objects")
struct OwnedCertificateTests {
    @Test("The CA's and a leaf's certificate and key live as long as they do, and are then freed")
    func freedWithTheirHolders() throws {
        try #require(certificateMarkIndex >= 0 && keyMarkIndex >= 0)
        try mintMarkAndRelease()
        // Freed once each: a double free would abort, a leak would leave the count short.
        #expect(markedFrees.load(ordering: .relaxed) == 4)
    }

    /// Marks the four objects of an ephemeral CA and one leaf it minted, checks none is freed while
    /// they are held, then lets go of both (the CA's cache holds the only other reference to the leaf).
    private func mintMarkAndRelease() throws {
        let authority = try CertificateAuthority.makeEphemeral()
        let leaf = try authority.certificate(for: "owned.test")
        let mark = UnsafeMutableRawPointer(bitPattern: 1)  // never dereferenced: OpenSSL only stores it
        #expect(X509_set_ex_data(authority.owned.certificate, certificateMarkIndex, mark) == 1)
        #expect(EVP_PKEY_set_ex_data(authority.owned.privateKey, keyMarkIndex, mark) == 1)
        #expect(X509_set_ex_data(leaf.owned.certificate, certificateMarkIndex, mark) == 1)
        #expect(EVP_PKEY_set_ex_data(leaf.owned.privateKey, keyMarkIndex, mark) == 1)
        withExtendedLifetime((authority, leaf)) {
            #expect(markedFrees.load(ordering: .relaxed) == 0)
        }
    }
}
