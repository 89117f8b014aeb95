package narwhal.config;

import static narwhal.config.FleetJson.errorsOf;
import static narwhal.config.FleetJson.minimal;
import static narwhal.config.FleetJson.parse;
import static narwhal.config.FleetJson.section;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tenants section: key hash lines, tenants and their limits, the tenants file, and problems that never echo a key. */
class TenantsConfigTest {

  private static final String KEY = "nwk_abcd1234_" + "s".repeat(43);
  private static final String OTHER_KEY = "nwk_wxyz9876_" + "t".repeat(43);
  private static final byte[] SALT = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  @Test
  void keyHash_roundTrips_andMatchesOnlyItsKey() {
    ApiKeyHash h = ApiKeyHash.of(KEY, SALT);
    ApiKeyHash parsed = ApiKeyHash.parse(h.format());

    assertThat(parsed).isEqualTo(h);
    assertThat(parsed.keyId()).isEqualTo("abcd1234");
    assertThat(parsed.matches(KEY)).isTrue();
    assertThat(parsed.matches(KEY + "x")).isFalse();
    assertThat(parsed.matches(OTHER_KEY)).isFalse();
    assertThat(h.format()).startsWith("nwk1$abcd1234$").doesNotContain(KEY.substring(13));
    assertThat(h.toString()).isEqualTo("ApiKeyHash{abcd1234}");
    assertThat(ApiKeyHash.keyIdOf(KEY)).isEqualTo("abcd1234");
    assertThat(ApiKeyHash.keyIdOf("Bearer nonsense")).isNull();
  }

  @Test
  void aKeyWhereItsHashBelongs_isRefused_withoutEchoingIt() {
    assertThatThrownBy(() -> ApiKeyHash.parse(KEY))
        .hasMessageContaining("is a key, not a key hash")
        .hasMessageNotContaining(KEY.substring(13));
  }

  @Test
  void tenants_parseWithTheirLimits() throws Exception {
    ObjectNode root = minimal();
    ObjectNode tenants = section(root, "tenants");
    tenants.putArray("operator_keys").add(ApiKeyHash.of(OTHER_KEY, SALT).format());
    ObjectNode t = tenants.putArray("list").addObject();
    t.put("name", "search").put("max_in_flight", 8).put("rate_per_s", 5).put("burst", 10).put("queue_share", 0.5);
    t.putArray("keys").add(ApiKeyHash.of(KEY, SALT).format());
    t.putArray("models").add("m");
    tenants.withArray("list").addObject().put("name", "batch").putArray("keys")
        .add(ApiKeyHash.of("nwk_batch001_" + "u".repeat(43), SALT).format());

    TenantsConfig parsed = parse(root).tenants();

    assertThat(parsed.enabled()).isTrue();
    assertThat(parsed.operatorKeys()).extracting(ApiKeyHash::keyId).containsExactly("wxyz9876");
    TenantConfig search = parsed.tenants().get(0);
    assertThat(search).extracting(TenantConfig::name, TenantConfig::maxInFlight, TenantConfig::ratePerS,
        TenantConfig::burst, TenantConfig::queueShare).containsExactly("search", 8, 5.0, 10.0, 0.5);
    assertThat(search.allows("m")).isTrue();
    assertThat(search.allows("other")).isFalse();
    TenantConfig batch = parsed.tenants().get(1);
    assertThat(batch.allows("anything")).isTrue();
    assertThat(batch).extracting(TenantConfig::maxInFlight, TenantConfig::ratePerS, TenantConfig::queueShare)
        .containsExactly(0, 0.0, 1.0);
  }

  @Test
  void noTenantsSection_meansNoAuthentication() throws Exception {
    assertThat(parse(minimal()).tenants().enabled()).isFalse();
  }

  @Test
  void problems_areAllReported_andNoKeyIsEchoed() {
    ObjectNode root = minimal();
    ArrayNode list = section(root, "tenants").putArray("list");
    ObjectNode a = list.addObject().put("name", "a b").put("rate_per_s", -1);
    a.putArray("keys").add(KEY);
    ObjectNode b = list.addObject().put("name", "dup");
    b.putArray("keys").add(ApiKeyHash.of(OTHER_KEY, SALT).format());
    ObjectNode c = list.addObject().put("name", "dup").put("queue_share", 2);
    c.putArray("keys").add(ApiKeyHash.of(OTHER_KEY, SALT).format());

    List<String> errors = errorsOf(root);

    assertThat(errors).contains(
        "$.tenants.list[0].name: must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
        "$.tenants.list[0].keys[0]: is a key, not a key hash: store the hash line narwhal key prints, never the key",
        "$.tenants.list[2].name: \"dup\" is already the name of $.tenants.list[1]",
        "$.tenants.list[2].keys[0]: key id wxyz9876 is already used at $.tenants.list[1].keys[0]");
    assertThat(errors).anyMatch(e -> e.startsWith("$.tenants.list[0].rate_per_s:"));
    assertThat(errors).anyMatch(e -> e.startsWith("$.tenants.list[2].queue_share:"));
    assertThat(String.join("\n", errors)).doesNotContain(KEY.substring(13));
  }

  @Test
  void tenantsFile_isRead_andItsProblemsNameIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tenants.json");
    Files.writeString(file, "{\"list\": [{\"name\": \"t\", \"keys\": [\"" + ApiKeyHash.of(KEY, SALT).format() + "\"]}]}");
    ObjectNode root = minimal();
    section(root, "tenants").put("file", file.toString());

    assertThat(parse(root).tenants().tenants()).extracting(TenantConfig::name).containsExactly("t");

    Files.writeString(file, "{\"list\": [{\"name\": \"t\"}]}");
    assertThat(errorsOf(root)).containsExactly(
        file + ": $.list[0].keys: required: a non-empty array of key hash lines (narwhal key prints them)");
  }
}
