package narwhal.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@code GET /v1/models}: vLLM's model list with the one served model. */
final class ModelList {
  private ModelList() {}

  static ObjectNode body(SimOptions options) {
    long created = System.currentTimeMillis() / 1000;
    ObjectNode list = SimJson.object();
    list.put("object", "list");
    ObjectNode model = list.putArray("data").addObject();
    model.put("id", options.model());
    model.put("object", "model");
    model.put("created", created);
    model.put("owned_by", "vllm");
    model.put("root", options.model());
    model.putNull("parent");
    model.put("max_model_len", options.maxModelLen());
    ObjectNode permission = model.putArray("permission").addObject();
    permission.put("id", "modelperm-" + options.engineId().replace("-", ""));
    permission.put("object", "model_permission");
    permission.put("created", created);
    permission.put("allow_create_engine", false);
    permission.put("allow_sampling", true);
    permission.put("allow_logprobs", true);
    permission.put("allow_search_indices", false);
    permission.put("allow_view", true);
    permission.put("allow_fine_tuning", false);
    permission.put("organization", "*");
    permission.putNull("group");
    permission.put("is_blocking", false);
    return list;
  }
}
