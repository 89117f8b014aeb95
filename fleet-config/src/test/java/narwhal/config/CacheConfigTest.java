package narwhal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The fleet file's {@code cache} section: defaults, per-engine endpoints derived from the engines, problems. */
class CacheConfigTest {

  private static ObjectNode fleet() {
    return FleetJson.minimal();
  }

  @Test
  void absent_meansOff_withNoEngines() throws Exception {
    CacheConfig cache = FleetJson.parse(fleet()).cache();
    assertThat(cache.mode()).isEqualTo(CacheMode.OFF);
    assertThat(cache.enabled()).isFalse();
    assertThat(cache.engines()).isEmpty();
    assertThat(cache.blockSize()).isEqualTo(16);
  }

  @Test
  void eventsMode_derivesEachEnginesEndpointsFromItsHost_vllmsPorts() throws Exception {
    ObjectNode root = fleet();
    root.putObject("cache").put("mode", "events").put("hot_prefix_margin", 0.5);
    FleetConfig config = FleetJson.parse(root);
    CacheConfig cache = config.cache();
    assertThat(cache.mode()).isEqualTo(CacheMode.EVENTS);
    assertThat(cache.hotPrefixMargin()).isEqualTo(0.5);
    EngineSpec first = config.engines().get(0);
    CacheEngineConfig e = cache.engine(first.iid());
    assertThat(e.events()).isTrue();
    assertThat(e.endpoint()).isEqualTo("tcp://" + first.url().getHost() + ":5557");
    assertThat(e.replayEndpoint()).isEqualTo("tcp://" + first.url().getHost() + ":5558");
    assertThat(e.topic()).isEmpty();
    assertThat(cache.engines()).hasSize(config.engines().size());
  }

  @Test
  void anEngineEntry_overridesEndpointTopicAndReplay_orTurnsEventsOff() throws Exception {
    ObjectNode root = fleet();
    String iid = FleetJson.parse(root).engines().get(0).iid();
    ObjectNode cache = root.putObject("cache").put("mode", "events");
    cache.putObject("engines").putObject(iid).put("endpoint", "tcp://10.0.0.5:6000").put("topic", "kv-events")
        .putNull("replay_endpoint");
    CacheEngineConfig e = FleetJson.parse(root).cache().engine(iid);
    assertThat(e.endpoint()).isEqualTo("tcp://10.0.0.5:6000");
    assertThat(e.topic()).isEqualTo("kv-events");
    assertThat(e.replayEndpoint()).isNull();

    ((ObjectNode) cache.get("engines").get(iid)).removeAll().put("events", false);
    assertThat(FleetJson.parse(root).cache().engine(iid).events()).isFalse();
  }

  @Test
  void problems_nameThePathAndWhatToFix() {
    ObjectNode root = fleet();
    ObjectNode cache = root.putObject("cache").put("mode", "sometimes").put("block_size", 0);
    cache.putObject("engines").putObject("nobody").put("endpoint", "tcp://x:1");
    assertThatThrownBy(() -> FleetJson.parse(root))
        .isInstanceOf(FleetConfigException.class)
        .hasMessageContaining("$.cache.mode: must be one of off, approximate, events")
        .hasMessageContaining("$.cache.block_size")
        .hasMessageContaining("$.cache.engines.nobody: names no engine of the fleet");

    ObjectNode bad = fleet();
    String iid = bad.get("engines").get(0).get("iid").asText();
    bad.putObject("cache").put("mode", "events").putObject("engines").putObject(iid).put("endpoint", "http://x:1");
    assertThatThrownBy(() -> FleetJson.parse(bad)).hasMessageContaining("tcp://HOST:PORT");
  }
}
