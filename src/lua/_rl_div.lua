-- floor(x / y) and ceil(x / y) for integers 0 <= x < 2^53, y >= 1, exact
-- (ceil: 0 for x <= 0). Shared by the limiter scripts (inlined at build time).
local function idiv(x, y)
  local q = math.floor(x / y)
  if q * y > x then
    q = q - 1
  elseif (q + 1) * y <= x then
    q = q + 1
  end
  return q
end

local function cdiv(x, y)
  if x <= 0 then return 0 end
  local q = idiv(x, y)
  if q * y < x then q = q + 1 end
  return q
end
