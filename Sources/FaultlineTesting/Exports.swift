// `import FaultlineTesting` is enough for everything its API takes or returns: the proxy-in-a-test
// core (`TestProxy`, `HeldFlow`), contracts and reports, rule sets, TLS, trace and hold types,
// the reference backend (`ReferenceBackend`, started in-process on an ephemeral port) and the
// socket, HTTP and ID types those name; captures and their replay (`CaptureOptions`,
// `ReplaySettings`, `CaptureLoadError`); exploration (`Exploration.run`, strategies, schedules
// and the report).
//
// FaultlineConfig is left out on purpose: its `SourceLocation` (a rule file's line:column) would
// make Swift Testing's `SourceLocation` ambiguous in every test file. The few APIs that return
// its types (rule-loading errors) print them; a test that needs to name them imports the
// `FaultlineConfig` product.
@_exported public import FaultlineBackend
@_exported public import FaultlineCapture
@_exported public import FaultlineContract
@_exported public import FaultlineCore
@_exported public import FaultlineExplore
@_exported public import FaultlineExplorer
@_exported public import FaultlineFlow
@_exported public import FaultlineHTTP1
@_exported public import FaultlinePosix
@_exported public import FaultlineProxy
@_exported public import FaultlineReplay
@_exported public import FaultlineRules
@_exported public import FaultlineServer
@_exported public import FaultlineTLS
@_exported public import FaultlineTestProxy
@_exported public import FaultlineTrace
