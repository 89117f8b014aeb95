package narwhal.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The {@code engine_contract} section: the compatibility fields every engine of a production fleet
 * must match, and the producer's KV lease. A fleet without a contract is a development fleet.
 * Every field is null when the file leaves it unpinned.
 *
 * @param vllmVersion the vLLM version, e.g. {@code "0.11.0"}
 * @param imageDigest the engine image digest, e.g. {@code "sha256:…"}
 * @param nixlVersion the NIXL library version
 * @param connectorVersion the KV connector's protocol version
 * @param architecture the model architecture, e.g. {@code "LlamaForCausalLM"}
 * @param dtype the model weights' dtype
 * @param kvHeads KV heads per layer
 * @param headSize the attention head size
 * @param layers transformer layers
 * @param attentionBackend the attention backend, e.g. {@code "FLASH_ATTN"}
 * @param kvCacheDtype the KV cache dtype, e.g. {@code "auto"} or {@code "fp8"}
 * @param blockSize KV cache block size in tokens (a layout flag)
 * @param kvLayout the KV cache memory layout, e.g. {@code "HND"} (a layout flag)
 * @param tensorParallelSize the tensor-parallel degree (a layout flag)
 * @param useMla whether the model uses multi-head latent attention (a layout flag)
 * @param connector the engine-side connector name, e.g. {@code "NixlConnector"}
 * @param kvRole the engines' {@code kv_role}: {@code kv_both}, {@code kv_producer} or {@code
 *     kv_consumer}
 * @param transferMode which side moves the KV blocks
 * @param speculativeConfig the speculative decoding config, free-form as in {@link HardwareConfig}
 * @param handshakeCompat the connector handshake's compatibility hash
 * @param kvLeaseDurationS how long a producer holds KV blocks for a consumer, in seconds
 */
public record EngineContract(
    @Nullable String vllmVersion,
    @Nullable String imageDigest,
    @Nullable String nixlVersion,
    @Nullable String connectorVersion,
    @Nullable String architecture,
    @Nullable String dtype,
    @Nullable Integer kvHeads,
    @Nullable Integer headSize,
    @Nullable Integer layers,
    @Nullable String attentionBackend,
    @Nullable String kvCacheDtype,
    @Nullable Integer blockSize,
    @Nullable String kvLayout,
    @Nullable Integer tensorParallelSize,
    @Nullable Boolean useMla,
    @Nullable String connector,
    @Nullable String kvRole,
    @Nullable TransferMode transferMode,
    @Nullable Map<String, @Nullable Object> speculativeConfig,
    @Nullable String handshakeCompat,
    @Nullable Double kvLeaseDurationS) {

  public EngineContract {
    if (speculativeConfig != null) {
      speculativeConfig = Collections.unmodifiableMap(new LinkedHashMap<>(speculativeConfig));
    }
  }

  /** A contract that pins nothing. */
  public static EngineContract defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this contract's fields, to change a few of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.vllmVersion = vllmVersion;
    b.imageDigest = imageDigest;
    b.nixlVersion = nixlVersion;
    b.connectorVersion = connectorVersion;
    b.architecture = architecture;
    b.dtype = dtype;
    b.kvHeads = kvHeads;
    b.headSize = headSize;
    b.layers = layers;
    b.attentionBackend = attentionBackend;
    b.kvCacheDtype = kvCacheDtype;
    b.blockSize = blockSize;
    b.kvLayout = kvLayout;
    b.tensorParallelSize = tensorParallelSize;
    b.useMla = useMla;
    b.connector = connector;
    b.kvRole = kvRole;
    b.transferMode = transferMode;
    b.speculativeConfig = speculativeConfig;
    b.handshakeCompat = handshakeCompat;
    b.kvLeaseDurationS = kvLeaseDurationS;
    return b;
  }

  public EngineContract withKvLeaseDurationS(@Nullable Double value) {
    return toBuilder().kvLeaseDurationS(value).build();
  }

  /**
   * The KV handoff age bound derived from the lease: {@code lease − floor(lease / 6)} (a 30 s
   * lease gives 25 s), leaving the consumer a sixth of the lease to pull the blocks. Null when the
   * contract sets no lease, which means the handoff age is unbounded.
   */
  public @Nullable Double handoffBoundS() {
    if (kvLeaseDurationS == null) {
      return null;
    }
    double lease = kvLeaseDurationS;
    return lease - Math.floor(lease / 6.0);
  }

  /** Builds an {@link EngineContract}; every field starts unpinned (null). */
  public static final class Builder {
    private @Nullable String vllmVersion;
    private @Nullable String imageDigest;
    private @Nullable String nixlVersion;
    private @Nullable String connectorVersion;
    private @Nullable String architecture;
    private @Nullable String dtype;
    private @Nullable Integer kvHeads;
    private @Nullable Integer headSize;
    private @Nullable Integer layers;
    private @Nullable String attentionBackend;
    private @Nullable String kvCacheDtype;
    private @Nullable Integer blockSize;
    private @Nullable String kvLayout;
    private @Nullable Integer tensorParallelSize;
    private @Nullable Boolean useMla;
    private @Nullable String connector;
    private @Nullable String kvRole;
    private @Nullable TransferMode transferMode;
    private @Nullable Map<String, @Nullable Object> speculativeConfig;
    private @Nullable String handshakeCompat;
    private @Nullable Double kvLeaseDurationS;

    private Builder() {}

    public Builder vllmVersion(@Nullable String value) {
      vllmVersion = value;
      return this;
    }

    public Builder imageDigest(@Nullable String value) {
      imageDigest = value;
      return this;
    }

    public Builder nixlVersion(@Nullable String value) {
      nixlVersion = value;
      return this;
    }

    public Builder connectorVersion(@Nullable String value) {
      connectorVersion = value;
      return this;
    }

    public Builder architecture(@Nullable String value) {
      architecture = value;
      return this;
    }

    public Builder dtype(@Nullable String value) {
      dtype = value;
      return this;
    }

    public Builder kvHeads(@Nullable Integer value) {
      kvHeads = value;
      return this;
    }

    public Builder headSize(@Nullable Integer value) {
      headSize = value;
      return this;
    }

    public Builder layers(@Nullable Integer value) {
      layers = value;
      return this;
    }

    public Builder attentionBackend(@Nullable String value) {
      attentionBackend = value;
      return this;
    }

    public Builder kvCacheDtype(@Nullable String value) {
      kvCacheDtype = value;
      return this;
    }

    public Builder blockSize(@Nullable Integer value) {
      blockSize = value;
      return this;
    }

    public Builder kvLayout(@Nullable String value) {
      kvLayout = value;
      return this;
    }

    public Builder tensorParallelSize(@Nullable Integer value) {
      tensorParallelSize = value;
      return this;
    }

    public Builder useMla(@Nullable Boolean value) {
      useMla = value;
      return this;
    }

    public Builder connector(@Nullable String value) {
      connector = value;
      return this;
    }

    public Builder kvRole(@Nullable String value) {
      kvRole = value;
      return this;
    }

    public Builder transferMode(@Nullable TransferMode value) {
      transferMode = value;
      return this;
    }

    public Builder speculativeConfig(@Nullable Map<String, @Nullable Object> value) {
      speculativeConfig = value;
      return this;
    }

    public Builder handshakeCompat(@Nullable String value) {
      handshakeCompat = value;
      return this;
    }

    public Builder kvLeaseDurationS(@Nullable Double value) {
      kvLeaseDurationS = value;
      return this;
    }

    public EngineContract build() {
      return new EngineContract(
          vllmVersion, imageDigest, nixlVersion, connectorVersion, architecture, dtype, kvHeads,
          headSize, layers, attentionBackend, kvCacheDtype, blockSize, kvLayout,
          tensorParallelSize, useMla, connector, kvRole, transferMode, speculativeConfig,
          handshakeCompat, kvLeaseDurationS);
    }
  }
}
