-- docs-links.lua: pandoc filter for pages built from handouts/ and slides/
-- into build/docs/. Relative links are written for the Markdown sources, so
-- they are rewritten for where the HTML ends up:
--   handouts/NN_name.md  -> NN_name.html   (handouts/README.md -> index.html)
--   slides/lab.md        -> slides.html
--   any other file       -> the same file in the repository, seen from build/docs/
-- It also gives each page a <title> taken from its first level-1 heading.

-- the repository root as seen from the output directory (build/docs)
local root_from_out = os.getenv("DOCS_ROOT_FROM_OUT") or "../.."

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- resolve "." and ".." so that "handouts/../slides/lab.md" becomes "slides/lab.md"
local function normalize(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." and #parts > 0 and parts[#parts] ~= ".." then
      table.remove(parts)
    elseif part ~= "." then
      table.insert(parts, part)
    end
  end
  return table.concat(parts, "/")
end

local source_dir = dirname(PANDOC_STATE.input_files[1] or "handouts/x.md")

local function output_name(repo_path)
  if repo_path == "handouts/README.md" then return "index.html" end
  local page = repo_path:match("^handouts/([^/]+)%.md$")
  if page then return page .. ".html" end
  if repo_path == "slides/lab.md" then return "slides.html" end
  return root_from_out .. "/" .. repo_path
end

function Link(link)
  local target = link.target
  -- leave absolute URLs (http:, mailto:, ...), absolute paths and same-page anchors alone
  if target:match("^%a[%w+.-]*:") or target:match("^/") or target:match("^#") then
    return nil
  end
  local path, anchor = target:match("^([^#]*)(.*)$")
  link.target = output_name(normalize(source_dir .. "/" .. path)) .. anchor
  return link
end

function Pandoc(doc)
  if doc.meta.title == nil and doc.meta.pagetitle == nil then
    for _, block in ipairs(doc.blocks) do
      if block.t == "Header" and block.level == 1 then
        doc.meta.pagetitle = pandoc.utils.stringify(block.content)
        break
      end
    end
  end
  return doc
end
