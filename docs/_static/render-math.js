// Typesets the pages' math with the KaTeX that vecnet's reports ship, so that the site
// reads the same offline as online.
document.addEventListener("DOMContentLoaded", () => {
  for (const element of document.querySelectorAll(".math")) {
    let tex = element.textContent.trim();
    let display = element.tagName === "DIV";
    if (tex.startsWith("\\[") && tex.endsWith("\\]")) {
      tex = tex.slice(2, -2);
      display = true;
    } else if (tex.startsWith("\\(") && tex.endsWith("\\)")) {
      tex = tex.slice(2, -2);
    }
    katex.render(tex, element, {displayMode: display, throwOnError: false});
  }
});
