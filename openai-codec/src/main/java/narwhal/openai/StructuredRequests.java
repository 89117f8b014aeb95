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
    Route route = route(request);
    if (route != request.getRoute()) {
      request = request.toBuilder().setRoute(route).build();
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

  /**
   * The request's route: {@code route} when set, else what its {@code input} oneof holds ({@code
   * prompt}: completions, {@code chat}: chat completions). A route that contradicts the input is
   * refused in the message's own words (its proto fields), since no HTTP body can spell that
   * mistake; a set route without input goes on to the HTTP rules ({@code 'prompt' is required}).
   */
  static Route route(CompletionRequest request) throws InvalidRequestException {
    Route route = request.getRoute();
    CompletionRequest.InputCase input = request.getInputCase();
    switch (route) {
      case ROUTE_UNSPECIFIED:
        if (input == CompletionRequest.InputCase.PROMPT) {
          return Route.ROUTE_COMPLETIONS;
        }
        if (input == CompletionRequest.InputCase.CHAT) {
          return Route.ROUTE_CHAT_COMPLETIONS;
        }
        throw InvalidRequestException.badField("route", "'route' is ROUTE_UNSPECIFIED and no input is set: "
            + "set 'prompt' (a completion) or 'chat' (a chat completion), or set 'route'");
      case ROUTE_COMPLETIONS:
        if (input == CompletionRequest.InputCase.CHAT) {
          throw mismatch(route, "prompt", "chat");
        }
        return route;
      case ROUTE_CHAT_COMPLETIONS:
        if (input == CompletionRequest.InputCase.PROMPT) {
          throw mismatch(route, "chat", "prompt");
        }
        return route;
      default:
        throw InvalidRequestException.badField(
            "route", "'route' must be ROUTE_COMPLETIONS or ROUTE_CHAT_COMPLETIONS, got " + route.name());
    }
  }

  private static InvalidRequestException mismatch(Route route, String expected, String sent) {
    return InvalidRequestException.badField(sent, "'route' " + route.name() + " takes its input in '" + expected
        + "', but the request sets '" + sent + "': send '" + expected + "', or leave 'route' unspecified");
  }
}
