/// Presents and dismisses the platform's picker: the flow layer forwards these to the delegate.
public protocol TVProviderDialogPresenter: Sendable {
    func present(_ dialog: TVProviderDialog) async
    func dismiss(_ dialog: TVProviderDialog) async
}
