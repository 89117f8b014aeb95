package narwhal.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/**
 * Validation for requests that arrive already structured (the gRPC front-end), by exactly the
 * rules {@link OpenAiRequestCodec#parse} applies to an HTTP body.
 *
 * <p>The request is written as the OpenAI body it stands for and that body is read back: one set
 * of rules, so an HTTP client and a gRPC client sending the same request get the same 400 with the
 * same message and {@code param}, and the request the core receives is normalised the same way.
 */
public final class StructuredRequests {

  private StructuredRequests() {}

  /**
   * The validated, normalised request.
   *
   * @throws InvalidRequestException a 400 naming the offending field
   */
  public static CompletionRequest validate(CompletionRequest request) throws InvalidRequestException {
    Route route = request.getRoute();
    if (route != Route.ROUTE_COMPLETIONS && route != Route.ROUTE_CHAT_COMPLETIONS) {
      throw InvalidRequestException.badField(
          "route", "'route' must be ROUTE_COMPLETIONS or ROUTE_CHAT_COMPLETIONS, got " + route.name());
    }
    ObjectNode body;
    try {
      body = RequestWriter.write(request);
    } catch (IllegalArgumentException e) {
      // Verbatim JSON slots (extra_fields, prompt.json, content_json) hold text that is not JSON.
      throw new InvalidRequestException(RouterError.invalid(e.getMessage() + ": send one JSON value as text", null));
    }
    return new RequestReader(route).read(body, request.getClientRequestId());
  }
}
