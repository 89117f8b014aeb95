package narwhal.testing;

import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.spi.DecodeDraft;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.HandoffStyle;
import narwhal.spi.UnreadableHandoffException;
import org.jspecify.annotations.Nullable;

/**
 * A test fixture: an engine dialect that forwards every method, default ones included, to another,
 * so that a test dialect overrides only what it changes (a tokenize route, a counter, a name).
 */
public abstract class ForwardingDialect implements EngineDialect {

  private final EngineDialect delegate;

  protected ForwardingDialect(EngineDialect delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId) {
    return delegate.prefillRequest(request, backendRequestId);
  }

  @Override
  public narwhal.spi.PrefillAnswer readPrefillAnswer(String body, String connector)
      throws UnreadableHandoffException {
    return delegate.readPrefillAnswer(body, connector);
  }

  @Override
  public String transferParametersJson(KvHandoffDescriptor descriptor) {
    return delegate.transferParametersJson(descriptor);
  }

  @Override
  public EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    return delegate.decodeRequest(request, handoff, backendRequestId);
  }

  @Override
  public DecodeDraft draftDecodeRequest(CompletionRequest request) {
    return delegate.draftDecodeRequest(request);
  }

  @Override
  public DecodeEventDecoder decodeEventDecoder(Route route) {
    return delegate.decodeEventDecoder(route);
  }

  @Override
  public String errorMessage(String body) {
    return delegate.errorMessage(body);
  }

  @Override
  public EngineHttpRequest healthRequest() {
    return delegate.healthRequest();
  }

  @Override
  public @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
    return delegate.handoffProblem(handoff, consumerConnector);
  }

  @Override
  public HandoffStyle handoffStyle() {
    return delegate.handoffStyle();
  }

  @Override
  public KvHandoffDescriptor planHandoff(EngineSpec producer, long room) {
    return delegate.planHandoff(producer, room);
  }

  @Override
  public EngineHttpRequest prefillRequest(
      CompletionRequest request, KvHandoffDescriptor planned, String backendRequestId) {
    return delegate.prefillRequest(request, planned, backendRequestId);
  }

  @Override
  public List<String> configurationProblems(EngineSpec engine) {
    return delegate.configurationProblems(engine);
  }

  @Override
  public int @org.jspecify.annotations.Nullable [] readTokenIds(String body) {
    return delegate.readTokenIds(body);
  }

  @Override
  public @Nullable EngineHttpRequest tokenizeRequest(CompletionRequest request, String backendRequestId) {
    return delegate.tokenizeRequest(request, backendRequestId);
  }

  @Override
  public long readTokenCount(String body) {
    return delegate.readTokenCount(body);
  }

  @Override
  public EngineHttpRequest modelsRequest() {
    return delegate.modelsRequest();
  }

  @Override
  public List<String> readModels(String body) {
    return delegate.readModels(body);
  }
}
