/** Whether the text holds half a surrogate pair (what a cut inside an emoji leaves); `String.prototype.isWellFormed` in ES2024. */
export const hasLoneSurrogate = (text: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
