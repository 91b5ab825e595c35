/** The provider id of the metrics declared in mce_config.yaml: they are selected as `sdk:<name>`. */
export const SDK_PROVIDER = 'sdk';
