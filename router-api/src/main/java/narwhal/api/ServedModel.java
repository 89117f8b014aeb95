package narwhal.api;

import narwhal.proto.v1.CompletionRequest;

/** The served-model rule every front-end applies before submitting a request. */
public final class ServedModel {

  private ServedModel() {}

  /**
   * {@code request} pinned to the served model: a request that names no model runs on the served
   * one, a request that names another gets 404 {@code model_not_found}. An empty name is a name
   * no model has: it is not "no model" (that is a missing or null {@code model}), so it gets 404
   * too rather than being quietly served.
   */
  public static CompletionRequest pin(CompletionRequest request, String served) throws InvalidRequestException {
    // The codec keeps "model": "" verbatim (the typed slot cannot tell it from absent).
    if ("\"\"".equals(request.getExtraFieldsMap().get("model"))) {
      throw new InvalidRequestException(ClientErrors.modelNotFound("", served));
    }
    if (!request.getModel().isEmpty() && !request.getModel().equals(served)) {
      throw new InvalidRequestException(ClientErrors.modelNotFound(request.getModel(), served));
    }
    // A "model" kept verbatim (null, "") would reach the engine beside the typed one.
    return request.toBuilder().setModel(served).removeExtraFields("model").build();
  }
}
