/// Presents and dismisses the platform's picker: the flow layer forwards these to the delegate.
public protocol TVProviderDialogPresenter: Sendable {
    /// Shows `dialog`: the ``TVProviderAccountProvider`` calls it when its picker must appear. The ``AccessEnabler``
    /// forwards it to ``EntitlementDelegate/presentTvProviderDialog(_:)``.
    func present(_ dialog: TVProviderDialog) async
    /// Removes `dialog`: the ``TVProviderAccountProvider`` calls it when its picker is done. The ``AccessEnabler``
    /// forwards it to ``EntitlementDelegate/dismissTvProviderDialog(_:)``.
    func dismiss(_ dialog: TVProviderDialog) async
}
