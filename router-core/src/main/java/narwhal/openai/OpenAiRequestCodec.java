package narwhal.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import narwhal.core.api.InvalidRequestException;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/** Maps OpenAI request JSON to {@link CompletionRequest} and back. PLACEHOLDER: being written. */
public final class OpenAiRequestCodec {

  private OpenAiRequestCodec() {}

  public static CompletionRequest parse(byte[] body, Route route, String clientRequestId)
      throws InvalidRequestException {
    throw new IllegalStateException("placeholder");
  }

  public static ObjectNode toJson(CompletionRequest request) {
    throw new IllegalStateException("placeholder");
  }
}
