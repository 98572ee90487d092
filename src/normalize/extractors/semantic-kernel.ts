import { isExecuteToolSpan, readExecuteToolSpan } from './gen-ai-execute-tool.js';
import type { ToolCallExtractor } from './extractor.js';

/**
 * Semantic Kernel (`utils/telemetry/model_diagnostics/function_tracer.py`): `execute_tool` spans
 * whose `gen_ai.tool.name` is the fully qualified `Plugin-function`; arguments and results are
 * not recorded. The model's requests are span events, read by the legacy-events extractor.
 * Canonical naming folds `WeatherPlugin-get_forecast` to `weather_plugin_get_forecast`; use
 * `aliases` to map it to a shorter name.
 */
export const semanticKernel: ToolCallExtractor = {
  id: 'semantic-kernel',
  executed(span) {
    if (!isExecuteToolSpan(span)) return undefined;
    const scope = span.scopeName;
    if (!scope.includes('semantic_kernel') && !scope.includes('SemanticKernel')) return undefined;
    const call = readExecuteToolSpan(span);
    return call ?? null;
  },
};
