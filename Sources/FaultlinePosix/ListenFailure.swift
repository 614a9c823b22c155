/// Why a listening socket could not be opened, in words a person can act on: the servers that
/// listen (the proxy, its control API, the reference backend) all say it this way.
package enum ListenFailure {
    /// The cause for "cannot listen on ADDRESS: …": a taken port says what to do about it, any
    /// other error says what it is.
    package static func explain(_ error: any Error) -> String {
        if let system = error as? SystemError, system.isAddressInUse {
            return "address already in use (another process listens there; pick another port or stop it)"
        }
        return "\(error)"
    }
}
