package narwhal.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import narwhal.openai.Json;

/** Reads the OpenAI {@code /v1/models} list shape: {@code {"object":"list","data":[{"id":..}]}}. */
public final class ModelLists {

  private ModelLists() {}

  public static List<String> ids(String body) {
    JsonNode root;
    try {
      root = Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the model list is not JSON: " + e.getOriginalMessage());
    }
    JsonNode data = root == null ? null : root.get("data");
    if (data == null || !data.isArray()) {
      throw new IllegalArgumentException("the model list has no \"data\" array");
    }
    List<String> ids = new ArrayList<>();
    for (JsonNode model : data) {
      if (model.path("id").isTextual()) {
        ids.add(model.get("id").asText());
      }
    }
    return ids;
  }
}
